/* Two gotos that jump to each other and nothing else, unreached: spin refuses the
   chain ("confusing control structure"). */
byte x;
active proctype P() {
	x = 1;
	goto done;
L:	goto M;
M:	goto L;
done:	skip
}
