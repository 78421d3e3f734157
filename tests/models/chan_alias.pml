/* Channel variables initialised from other channels are aliases: no new
 * channel is created (pan has 2 queues, the elements of q), the id is
 * copied. A global alias copies q[1] when the globals are initialised, a
 * local one when its process is created (also from a parameter), one that
 * is declared after the first statement when that assignment step runs. */
chan q[2] = [1] of { byte };
chan g = q[1];
chan h;
chan gh = h;
byte x;

proctype User(chan a) {
	chan c = a;
	c ! 7;
	a ? x;
	assert(x == 7 && c == a)
}

active proctype P() {
	chan c = q[1];
	c ! 5;
	g ? x;
	assert(x == 5);
	q[1] ! 6;
	c ? x;
	assert(x == 6 && c == g && gh == 0);
	h = q[0];
	assert(gh == 0);
	run User(q[0]);
	(_nr_pr == 1);
	chan d = h;
	d ! 9;
	q[0] ? x;
	assert(x == 9 && d == q[0])
}
