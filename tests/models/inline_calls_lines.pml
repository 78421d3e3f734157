/* Inline calls after a line break (the break ends the previous statement), labels inside
 * inline bodies (each call has its own), a for loop over a channel's messages, and over an
 * element of an array of channels. */
typedef msg { byte a; bool b };
chan q[2] = [3] of { msg };
msg m, n;
byte total;

inline drain_one(c, v) {
	if
	:: nempty(c) -> c?v; goto out
	:: empty(c) -> goto out
	fi;
out:	skip
}

active proctype P()
{
	m.a = 1; m.b = true;
	q[0]!m
	m.a = 2
	q[0]!m;
	for (n in q[0]) {
		total = total + n.a
	}
	drain_one(q[0], n)
	drain_one(q[0], n)
	assert(total == 3)
}
