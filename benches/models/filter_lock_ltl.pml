/* Peterson's filter lock (as filter_lock.pml) with mutual exclusion as an ltl formula.
 * Scale with -DN=… (default 3). Written for the git rmc benchmarks. */
#ifndef N
#define N 3
#endif

byte level[N];
byte victim[N];
byte incs;

active [N] proctype P()
{
	byte l, k;
	do
	:: l = 1;
	   do
	   :: l < N ->
		level[_pid] = l;
		victim[l] = _pid;
		k = 0;
		do
		:: k == _pid -> k++
		:: k != _pid && k < N ->
			if
			:: level[k] >= l && victim[l] == _pid -> k = 0
			:: else -> k++
			fi
		:: k >= N -> break
		od;
		l++
	   :: l >= N -> break
	   od;
	   incs++;
	   assert(incs == 1);
	   incs--;
	   level[_pid] = 0
	od
}

ltl mutex { [] (incs <= 1) }
