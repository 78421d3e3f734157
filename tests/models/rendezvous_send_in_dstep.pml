/* A rendezvous send after the first statement of a d_step: pan reports
 * "rv-attempt in d_step" and ends the whole search (even with -c0). */
chan c = [0] of { byte };
byte x;

active proctype S() {
	do
	:: x < 2 -> x++
	:: x == 2 -> break
	od;
	x = 3;
	d_step { x = 5; c ! x; x = 6 }
}

active proctype R() { c ? x }
