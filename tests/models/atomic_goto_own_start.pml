/* A goto at the end of an atomic sequence back onto the sequence's own start (a label on
 * the `atomic`) leaves the sequence: pan's transition has no A flag, the state after it is
 * stored, and the loop is not a non-terminating atomic sequence (found on a public POTS
 * telephone model, afd/symmetrytools testtelephone.p). */
byte b, n;
active proctype P() {
L:	atomic {
		b = 1 - b;
		if
		:: b == 0 -> goto L
		:: b == 1 -> goto L
		fi
	}
}
active proctype Q() { do :: n < 3 -> n++ :: n == 3 -> break od }
