/* A copy receive (c ? <v>) on a rendezvous channel: pan reports
 * "polling rv chan" each time it evaluates the statement (also when the
 * sender offers the handshake); the statement is never executable and the
 * search goes on with the other options. */
chan c = [0] of { byte };
byte x;

active proctype S() { c ! 5; x = 10 }

active proctype R() {
	if
	:: c ? <x> -> x = 99
	:: c ? x
	fi;
	assert(x == 5 || x == 10)
}
