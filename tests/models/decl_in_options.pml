/* Declarations inside unbraced if/do options. An option is not a { } block:
 * the variable belongs to the proctype (visible in later options and after
 * fi/od), and since the option's sequence is not the start of the body the
 * declaration is a statement: an assignment of its initialiser (or of 0). */
byte x;

active proctype P() {
	if
	:: x = 0
	:: x = 1
	fi;
	if
	:: x == 0 -> byte v = 5; x = v
	:: x != 0 -> v++
	fi;
	assert(v == 5 || v == 1);
	do
	:: x < 8 -> short w = 300; w++; x = x + 2
	:: x >= 8 -> break
	:: x == 3 -> w--; x = 4
	od;
	assert(w == 301 || w == 0);
	if
	:: x == 9 -> byte z; v = z
	:: else -> z = 7
	fi;
	assert(z == 0 || z == 7)
}
