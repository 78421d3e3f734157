/* Many distinct invalid end states: each of N processes picks one of V+1
 * values and one of four places, and blocks there for good; every
 * combination is an invalid end state of its own ((4*(V+1))^N of them,
 * 110592 with the defaults). Scale with -DN=… (default 3) and -DV=… (the
 * largest value, at most 32 so that select is spin's if form; default 11).
 * Written for the git rmc benchmarks. */
#ifndef N
#define N 3
#endif
#ifndef V
#define V 11
#endif

bit go;

active [N] proctype Stuck()
{
	byte v;
	select (v : 0 .. V);
	if
	:: true -> go == 1
	:: true -> v > V || go == 1
	:: true -> go + v == 255
	:: true -> v == 255
	fi
}
