/* Many reaches of one invalid end state, deep in the search: a counter
 * counts to LIMIT, a helper hands the turn back after each step and, at
 * every EVERY-th value, may instead stop at the same place (`stuck`), which
 * deadlocks both. pan reports about LIMIT/EVERY invalid end states, all with
 * the same blocked locations, on paths up to 3*LIMIT steps deep.
 * Scale with -DLIMIT=… (default 50000) and -DEVERY=… (default 5).
 * Written for the git rmc benchmarks. */
#ifndef LIMIT
#define LIMIT 50000
#endif
#ifndef EVERY
#define EVERY 5
#endif

int n;
bit turn;

active proctype Counter()
{
	do
	:: d_step { turn == 0 && n < LIMIT -> n++; turn = 1 }
	:: n == LIMIT -> break
	od
}

active proctype Helper()
{
end:	do
	:: turn == 1 -> turn = 0
	:: turn == 1 && n % EVERY == 0 -> goto stuck
	od;
stuck:	n > LIMIT
}
