/* Dining philosophers (as philosophers.pml) with ltl formulas: a safety one that holds and a liveness one that fails without fairness (philosopher 0 may starve); for the claims table of the benchmarks. A butler that seats at most N-1 at once (no deadlock).
 * Scale with -DN=… (default 5). Written for the git rmc benchmarks. */
#ifndef N
#define N 5
#endif

byte fork[N];
byte seated;
byte meals[N];

proctype Phil(byte i)
{
	byte left = i, right = (i + 1) % N;
	do
	:: atomic { seated < N - 1 -> seated++ };
	   atomic { fork[left] == 0 -> fork[left] = i + 1 };
	   atomic { fork[right] == 0 -> fork[right] = i + 1 };
	   meals[i] = (meals[i] + 1) % 2;
	   fork[right] = 0;
	   fork[left] = 0;
	   seated--
	od
}

init {
	byte k;
	atomic {
		do
		:: k < N -> run Phil(k); k++
		:: k == N -> break
		od
	}
}

ltl seated { [] (seated < N) }
ltl fed { []<> (meals[0] == 1) }
