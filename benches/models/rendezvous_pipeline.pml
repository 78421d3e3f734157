/* A pipeline of N stages joined by rendezvous channels; each stage transforms and
 * forwards M tokens, a sink checks their order.
 * Scale with -DN=… and -DM=… (defaults 4 and 3). Written for the git rmc benchmarks. */
#ifndef N
#define N 4
#endif
#ifndef M
#define M 3
#endif

chan link[N + 1] = [0] of { byte };
byte done_count;

proctype Stage(chan in, out)
{
	byte t;
end:	do
	:: in?t -> atomic { t = (t + 1) % 251; out!t }
	od
}

active proctype Source()
{
	byte n;
	do
	:: n < M -> link[0]!n; n++
	:: n == M -> break
	od
}

active proctype Sink()
{
	byte t, expect;
end:	do
	:: link[N]?t -> assert(t == (expect + N) % 251); expect++; done_count++
	od
}

init {
	byte k;
	atomic {
		do
		:: k < N -> run Stage(link[k], link[k + 1]); k++
		:: k == N -> break
		od
	}
}
