/* Deterministic steps and atomic sequences: d_step computes a checksum
 * in one indivisible step; atomic blocks contain if, do and goto.
 * Two processes interleave only at the atomic boundaries. */
byte data[4];
byte sum, rounds;

proctype Filler(byte base)
{
	byte i;
	atomic {
		i = 0;
	loop:	if
		:: i < 4 -> data[i] = base + i; i++; goto loop
		:: else
		fi
	}
}

proctype Summer()
{
	byte j, s;
	d_step {
		s = 0;
		j = 0;
		do
		:: j < 4 -> s = s + data[j]; j++
		:: else -> break
		od;
		sum = s
	}
	atomic {
		do
		:: rounds < 3 -> rounds++
		:: rounds >= 3 -> goto out
		od;
	out:	skip
	}
}

init {
	run Filler(10);
	(_nr_pr == 1);
	run Summer();
	(_nr_pr == 1);
	assert(sum == 10 + 11 + 12 + 13 && rounds == 3)
}
