/* Chang-Roberts leader election on a unidirectional ring of N nodes with buffered
 * channels; every node checks that exactly one leader is announced.
 * Scale with -DN=… (odd, default 5). Written for the git rmc benchmarks. */
#ifndef N
#define N 5
#endif

mtype = { elect, leader };
chan ring[N] = [2] of { mtype, byte };
byte leaders;

proctype Node(chan in, out; byte id)
{
	byte v;
	bool alive = 1;
	out!elect(id);
end:	do
	:: in?elect(v) ->
		if
		:: v > id -> out!elect(v)
		:: v < id -> skip
		:: v == id -> leaders++; assert(leaders == 1); out!leader(id)
		fi
	:: in?leader(v) ->
		if
		:: v != id -> out!leader(v)
		:: else -> skip
		fi;
		alive = 0;
		break
	od
}

init {
	byte k, perm;
	atomic {
		do
		:: k < N ->
			perm = (k * 2) % N + 1;	/* a permutation for odd N */
			run Node(ring[k], ring[(k + 1) % N], perm);
			k++
		:: k == N -> break
		od
	}
}
