/* A reached goto to its own label: no statement is ever executed there. */
active proctype P() {
	byte x = 1;
L:	goto L
}
