/* A lossy link: the sender waits for an acknowledgement and uses
 * timeout to retransmit when the message (or ack) was lost. The
 * sequence numbers alternate; the receiver checks ordering. */
chan data = [1] of { bit, byte };
chan ack = [1] of { bit };

active proctype Sender()
{
	bit seq = 0;
	byte payload = 0;
	do
	:: payload < 3 ->
		data ! seq, payload;
		if
		:: ack ? eval(seq) -> seq = 1 - seq; payload++
		:: timeout -> skip		/* resend */
		fi
	:: else -> break
	od
}

active proctype Receiver()
{
	bit s, expect = 0;
	byte p, nextp = 0;
end:	do
	:: data ? s, p ->
		if
		:: skip -> skip				/* lose it */
		:: s == expect -> assert(p == nextp); nextp++; expect = 1 - expect; ack ! s
		:: s != expect -> ack ! s		/* duplicate */
		fi
	od
}
