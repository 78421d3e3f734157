/* Mailbox inspection without consuming: poll q?[..], random poll q??[..],
 * copying receive q?<..> and q??<..>, plus eval() in a poll.
 * The observer never removes the message it peeks at. */
mtype = { ping, pong, stop };
chan box = [3] of { mtype, byte };

active proctype Writer()
{
	box ! ping, 1;
	box ! pong, 2;
	box ! stop, 0
}

active proctype Reader()
{
	byte n, seen = 0;
	mtype m;
	(full(box));
	assert(box ?[ping, 1]);
	assert(!box ?[pong, _]);
	assert(box ??[pong, 2]);
	box ?<m, n>;			/* copy, leaves message in place */
	assert(m == ping && n == 1 && len(box) == 3);
	box ??<stop, n>;
	assert(n == 0 && len(box) == 3);
	n = 2;
	assert(box ??[pong, eval(n)]);
	do
	:: box ? m, n ->
		if
		:: m == stop -> break
		:: else -> seen++
		fi
	od;
	assert(seen == 2 && empty(box))
}
