/* Strict alternation enforced by provided clauses instead of guards:
 * each process may only be scheduled when it holds the turn, so the
 * shared log always alternates. */
byte turn = 0;
byte log[6];
byte n;

active [2] proctype Taker() provided (turn == _pid)
{
end:	do
	:: n < 6 -> log[n] = _pid; n++; turn = 1 - _pid
	od
}

active proctype Judge()
{
	byte i;
	(n == 6);
	for (i : 1 .. 5) {
		assert(log[i] != log[i - 1])
	}
}
