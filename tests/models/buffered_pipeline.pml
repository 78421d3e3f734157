/* Three-stage pipeline over buffered channels with two-field messages.
 * Exercises len, empty, nempty, full, nfull, for (i : a..b) and
 * channel arrays passed as run arguments. */
#define N 3
#define ITEMS 4

chan stage[N] = [2] of { byte, short };

proctype Source(chan out)
{
	byte i;
	for (i : 1 .. ITEMS) {
		nfull(out);
		out ! i, i * 10
	}
}

proctype Relay(chan in, out)
{
	byte seq; short val;
end:	do
	:: nempty(in) -> atomic { in ? seq, val; assert(len(in) < 2) };
		out ! seq, val + 1
	od
}

proctype Sink(chan in)
{
	byte seq, expect = 1; short val;
	do
	:: expect <= ITEMS ->
		in ? seq, val;
		assert(seq == expect && val == seq * 10 + 1);
		expect++
	:: expect > ITEMS -> break
	od;
	assert(empty(in));
	assert(nfull(in))
}

init {
	atomic {
		run Source(stage[0]);
		run Relay(stage[0], stage[1]);
		run Sink(stage[1])
	}
}
