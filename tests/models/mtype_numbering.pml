/* spin 6.5.2 numbers each mtype (sub)type on its own, and the names of one declaration
 * from its last (1 more than the values before it) to its first: here b = 1, a = 2, c = 3;
 * s3 = 1, s2 = 2, s1 = 3, s4 = 4. Values of two subtypes can then be equal, and states
 * that hold them merge (found on a public Needham-Schroeder model). */
mtype = { a, b };
mtype:s = { s1, s2, s3 };
mtype = { c };
mtype:s = { s4 };
typedef holder { mtype x };
holder h;
byte n;
active proctype P() {
	assert(a == 2 && b == 1 && c == 3);
	assert(s1 == 3 && s3 == 1 && s4 == 4);
	if
	:: a > b -> n = 1
	:: else -> n = 2
	fi;
	do
	:: h.x = s3
	:: h.x = b
	:: h.x = c
	:: h.x = s1
	:: n < 3 -> n++
	:: n == 3 -> break
	od;
	assert(h.x != s4)
}
