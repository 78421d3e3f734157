/* A send with more values than the channel has fields, through a channel
 * parameter: spin cannot see it statically (another channel has two
 * fields), pan reports "too many parameters in send stmnt", keeps the first
 * value and goes on. */
chan c = [2] of { byte };
chan d = [1] of { byte, byte };
byte x;

proctype P(chan a) {
	a ! 1, 2;
	x = 1
}

init {
	run P(c);
	run P(d);
	(x == 1) -> c ? x;
	assert(x == 1)
}
