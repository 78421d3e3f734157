/* Two peers that both try to send first on rendezvous channels: the
 * order is wrong on one path, so both block and pan reports an invalid
 * end state. Shows rendezvous inside atomic and an else branch. */
chan ab = [0] of { byte };
chan ba = [0] of { byte };
bool politeA;

active proctype A()
{
	byte v;
	if
	:: politeA = true; ba ? v; ab ! v + 1
	:: else -> skip			/* never taken: politeA is false */
	:: skip -> atomic { ab ! 1; ba ? v }	/* commits, then blocks */
	fi
}

active proctype B()
{
	byte w;
	ba ! 5;
	ab ? w;
	assert(w == 6 || w == 1)
}
