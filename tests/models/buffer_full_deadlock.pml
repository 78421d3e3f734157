/* A producer writing four items into a two-slot buffer whose consumer
 * stops after one; the producer blocks on a full channel, which pan
 * reports as an invalid end state. Uses full/nfull and len. */
chan buf = [2] of { byte, bool };

active proctype Producer()
{
	byte i;
	for (i : 1 .. 4) {
		if
		:: full(buf) -> printf("buffer full at %d\n", i)
		:: nfull(buf) -> skip
		fi;
		buf ! i, (i % 2 == 0)
	}
}

active proctype Consumer()
{
	byte v; bool even;
	buf ? v, even;
	assert(v == 1 && !even);
	assert(len(buf) <= 2)
}
