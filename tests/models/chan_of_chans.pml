/* Reply channels passed inside messages: clients create a local
 * rendezvous channel and send it to a server, which answers on it.
 * Exercises chan as a message field and as a local declaration. */
chan service = [2] of { chan, byte };

active proctype Server()
{
	chan reply;
	byte q;
end:	do
	:: service ? reply, q -> reply ! q * q
	od
}

active [2] proctype Client()
{
	chan mine = [0] of { byte };
	byte ans, arg = _pid + 2;
	service ! mine, arg;
	mine ? ans;
	assert(ans == arg * arg)
}
