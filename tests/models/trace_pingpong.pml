/* A ping-pong pair whose channel events follow a trace assertion:
 * every send of ping on a is followed by a receive of pong from b,
 * and the trace is at its end label when the system ends. */
mtype = { ping, pong };
chan a = [1] of { mtype };
chan b = [1] of { mtype };

active proctype Pinger()
{
	byte n;
	do
	:: n < 3 -> a ! ping; b ? pong; n++
	:: else -> break
	od
}

active proctype Ponger()
{
end:	do
	:: a ? ping; b ! pong
	od
}

trace {
end:	do
	:: a ! ping; b ? pong
	od
}
