/* goto and labels with inlines. Every expansion of an inline is a { } block
 * of its own, so a label inside an inline is a new label at each call. */
byte x, n;

inline count() { n = 0; L: n++; if :: n < 3 -> goto L :: else -> skip fi }
inline mark() { x = x + 1; M: x = x + 10 }
inline mark2() { x = x + 1; N: x = x + 10 }
inline skipper() { goto S }
inline target() { x = 1; S: x = 2 }

active proctype P() {
	/* the same inline twice: each goto L reaches the L of its own expansion */
	count();
	assert(n == 3);
	count();
	assert(n == 3);

	/* a goto in the body, before the call, to a label inside the inline */
	x = 0;
	if
	:: goto M
	:: skip
	fi;
	mark();
	assert(x == 10 || x == 11);

	/* a goto after two expansions reaches the later one's label */
	x = 0;
	mark2();
	mark2();
	if
	:: x == 22 -> x = 0; goto N
	:: else -> skip
	fi;
	assert(x == 10);

	/* a goto in one inline to a label in another inline's expansion */
	x = 0;
	skipper();
	x = 99;
	target();
	assert(x == 2)
}
