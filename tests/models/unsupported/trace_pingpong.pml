/* UNSUPPORTED (trace): a ping-pong pair whose channel events are
 * checked against a trace assertion describing the allowed order of
 * sends and receives. git rmc rejects trace as not supported. */
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
