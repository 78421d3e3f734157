/* A goto to its own label in code nobody reaches: spin refuses it all the same
   ("infinite goto loop"), as it builds every transition of the proctype. */
byte x;
active proctype P() {
	x = 1;
	goto done;
L:	goto L;
done:	skip
}
