/* Declarations inside { } blocks (in options and in the body). A block is a
 * scope of its own: blocks side by side may declare the same name, each a
 * variable (a slot in the state vector) of its own, not visible after the
 * block. Every declaration in a block is a statement, even the first one and
 * one without initialiser (an assignment of 0); an array initialiser only
 * sets element 0. */
byte x;

active proctype P() {
	if
	:: x = 1
	:: x = 2
	fi;
	if
	:: x == 1 -> { byte v = 7; x = x + v; v++; assert(v == 8) }
	:: x == 2 -> { byte v = 9; x = x + v; assert(v == 9) }
	fi;
	{ byte w = 3; x = x + w; w = 200 };
	{ byte w; assert(w == 0); x = x + w; w = 4 };
	{ byte c[2] = 9; assert(c[0] == 9 && c[1] == 0) };
	do
	:: x < 16 -> { byte k; k++; x = x + k; assert(k == 1) }
	:: else -> break
	od;
	assert(x == 16 || x == 17)
}
