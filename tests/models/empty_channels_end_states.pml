/* With pan -q (--empty-channels) a final state is valid only if every
 * channel is empty: the path that leaves the message in c ends in an
 * invalid end state, the other one does not. Without -q there is no error. */
chan c = [2] of { bit };

active proctype P() {
	if
	:: c ! 1; skip; skip
	:: skip
	fi
}
