/* A d_step whose first statement is a rendezvous receive: the handshake
 * with the sender and the rest of the d_step are one step. */
chan c = [0] of { byte };
byte x;

active proctype S() { c ! 5 }

active proctype R() { d_step { c ? x; x = x + 1 } }
