/* The same error through a rendezvous: the handshake with (2, 1) reads a third field that
 * the message does not have (the reduced form of a public alternating-bit model's daemon,
 * `s2r ? _(_,_)` on a two-field channel). */
chan c = [0] of { byte, bit };
byte y;

active proctype A()
{
	c ! 1, 0;
	c ! 1, 1;
	c ! 2, 1
}

active proctype B()
{
	do
	:: c ? 2, y, _
	:: c ? 1, y -> skip
	od
}
