/* goto and labels with the same name in nested and sibling { } blocks.
 * spin resolves a goto to a label of its own block first, then to the
 * innermost enclosing block's, else to the most recently declared one. */
byte x;

active proctype P() {
	/* own block first: the L in the block, not the later top-level L */
	{ x = 1; goto L; x = 50; L: x = 2 };
	assert(x == 2);
	/* a top-level goto takes the top-level L, not the one in the block */
	goto L;
	x = 40;
L:	x = 4;
	assert(x == 4);

	/* enclosing block: a goto in an inner block reaches the label of the
	 * innermost block around it, not the outer one */
	{
		x = 10;
		{ x = 11; goto E; x = 60 };
		x = 61;
E:		x = 12
	};
	assert(x == 12);
	goto Sib;
E:	x = 70;
	assert(false);

	/* sibling blocks: no label in the goto's own or an enclosing block,
	 * the most recently declared one is taken */
Sib:	{ x = 20; S: x = 21 };
	{ x = 22; S: x = 23 };
	if
	:: x == 23 -> x = 0; { x = 24; goto S }
	:: else -> skip
	fi;
	assert(x == 23)
}
