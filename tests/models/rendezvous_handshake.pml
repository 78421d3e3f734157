/* Rendezvous handshake: a client and a server exchange multi-field
 * messages over unbuffered (rendezvous) channels. Exercises mtype,
 * proctype parameters, run with arguments, printm, end labels. */
mtype = { req, ack, nak, done };

chan toServer = [0] of { mtype, byte, bit };
chan toClient = [0] of { mtype, byte };

proctype Server(chan in; chan out)
{
	byte id; bit flag;
end:	do
	:: in ? req, id, flag ->
		if
		:: flag == 1 -> out ! ack, id
		:: flag == 0 -> out ! nak, id
		fi
	:: in ? done, _, _ -> break
	od;
	printf("server finished\n")
}

proctype Client(byte n)
{
	byte i = 0, got;
	mtype reply;
	do
	:: i < n ->
		toServer ! req, i, (i % 2);
		toClient ? reply, got;
		assert(got == i);
		printm(reply);
		assert(reply == ((i % 2) -> ack : nak));
		i++
	:: else -> break
	od;
	toServer ! done, 0, 0
}

init {
	run Server(toServer, toClient);
	run Client(3)
}
