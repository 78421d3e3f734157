/* UNSUPPORTED (notrace): a worker reports on a debug channel and a
 * notrace block states a send sequence that must never happen.
 * git rmc rejects notrace as not supported. */
chan dbg = [2] of { byte };

active proctype Worker()
{
	dbg ! 1;
	dbg ! 2
}

active proctype Drain()
{
	byte v;
end:	do
	:: dbg ? v
	od
}

notrace {
	dbg ! 2;
	dbg ! 1
}
