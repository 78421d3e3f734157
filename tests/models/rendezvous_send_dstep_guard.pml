/* A rendezvous send as the first statement of a d_step is no better: pan
 * reports "rv-attempt in d_step" as soon as the d_step runs and ends the
 * whole search. (A rendezvous receive as the first statement works, see
 * dstep_rendezvous_receive.pml.) */
chan c = [0] of { byte };
byte x;

active proctype S() {
	x = 1;
	d_step { c ! 5; x = 2 }
}

active proctype R() { c ? x; assert(x == 5) }
