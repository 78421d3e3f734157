/* A label on a `for` names the loop itself: spin emits the loop variable's initialisation as
 * a statement of its own before the labelled loop, so `goto` to the label skips it (and when
 * nothing else reaches it, pan drops it). Here the second round restarts with i as it is. */
byte i, rounds, total;

active proctype P()
{
	i = 2;
	goto Loop;
Loop:	for (i : 0 .. 3) {
		total = total + i
	}
	rounds++;
	if
	:: rounds < 2 -> i = 1; goto Loop
	:: else
	fi;
	assert(total == 2 + 3 + 1 + 2 + 3)
}
