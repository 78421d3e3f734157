/* A rendezvous receive after the first statement of a d_step can never
 * complete (no handshake inside a d_step): pan reports "block in d_step seq"
 * and ends the whole search, as for any d_step that blocks. */
chan c = [0] of { byte };
byte x;

active proctype S() { x < 3 -> c ! 5 }

active proctype R() {
	x++;
	d_step { x > 0; c ? x; x++ }
}
