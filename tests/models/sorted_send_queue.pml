/* Priority queue built from sorted send (!!) and random receive (??).
 * Receives use constants, eval() of a variable, and the _ wildcard;
 * the consumer checks that sorted insertion kept the order. */
chan q = [4] of { byte, byte };

active proctype Producer()
{
	q !! 7, 70;
	q !! 2, 20;
	q !! 5, 50;
	q !! 2, 21
}

active proctype Consumer()
{
	byte k, v, want = 5;
	(len(q) == 4);
	q ?? eval(want), v;	/* random receive of a chosen key */
	assert(v == 50);
	q ?? 7, _;		/* constant key, value discarded */
	q ? k, v;		/* head of the sorted queue */
	assert(k == 2);
	q ? k, _;
	assert(k == 2 && empty(q))
}
