/* A receive of constants only that names fewer fields than a rendezvous message has: pan
 * reports "wrong nr of msg fields in rcv" in the receive half of the handshake, a level
 * below the send, and that path ends there; the search goes on elsewhere. */
chan c = [0] of { byte, byte };
byte n;

active proctype A()
{
	c ! 5, 0;
	c ! 1, 0;
	n++
}

active proctype B()
{
	do
	:: c ? 1
	:: c ? 5, 0 -> n++
	od
}
