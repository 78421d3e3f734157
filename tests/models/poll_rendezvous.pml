/* A poll (c?[5]) of a rendezvous channel: pan reports "error to poll
 * rendezvous channel" each time it evaluates the poll; the poll is false
 * and the search goes on. */
chan c = [0] of { byte };
byte x;

active proctype S() { c ! 5 }

active proctype R() {
	do
	:: x < 3 -> x++
	:: c?[5] -> break
	:: x == 3 -> break
	od;
	c ? _
}
