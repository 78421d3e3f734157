/* A declaration's initialisation is placed where spin's lexer stands when the parser
 * reduces it: at the token after its `;`. When that token is an inline call, the line is
 * the call's, not the line of the inline's definition (spin reads the body only later).
 * Also after `fi` and `od` (the jump out of the selection is placed likewise). */
inline bump(v, by) {
	v = v + by
}

inline settle(v) {
	if
	:: v > 3 -> v = 3
	:: else
	fi
}

active proctype P()
{
	byte x;

	bump(x, 2);
	byte y = 1;
	bump(y, x)
	int z
	settle(y)
	if
	:: x > 1 -> z = 1
	:: else -> z = 2
	fi
	bump(z, 1);
	do
	:: z < 5 -> z++
	:: else -> break
	od
	settle(z);
	assert(y == 3 && z == 3)
}
