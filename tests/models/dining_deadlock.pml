/* Three dining philosophers who all take the left fork first over
 * buffered token channels; the model deadlocks, so pan reports an
 * invalid end state. Exercises chan arrays, run in a for loop. */
#define NP 3
chan fork[NP] = [1] of { bit };

proctype Phil(byte me)
{
	byte left = me, right = (me + 1) % NP;
	do
	:: fork[left] ? 1 ->
		fork[right] ? 1;
		printf("phil %d eats\n", me);
		fork[right] ! 1;
		fork[left] ! 1
	od
}

init {
	byte i;
	atomic {
		for (i : 0 .. NP - 1) {
			fork[i] ! 1
		}
		i = 0;
		do
		:: i < NP -> run Phil(i); i++
		:: else -> break
		od
	}
}
