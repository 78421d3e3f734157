/* A worker reports on a debug channel; the notrace forbids a send of 2
 * followed by a send of 1. The first send (1) matches no transition of
 * it: the notrace is disarmed for good, and nothing is reported. */
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
