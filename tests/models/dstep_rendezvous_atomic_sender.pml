/* The sender of a rendezvous is inside an atomic, the receiver's d_step
 * starts with the receive. After the handshake control is with the
 * receiver: the d_step finishes and R's assertion can run before S ends its
 * atomic (y is still 1), so the assertion fails. */
chan c = [0] of { byte };
byte x, y;

active proctype S() { atomic { y = 1; c ! 5; y = 2 } }

active proctype R() {
	d_step { c ? x; x = x + 1 };
	assert(y == 2)
}
