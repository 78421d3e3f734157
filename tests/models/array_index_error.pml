/* A ring buffer inspected by a checker that forgets the modulo, so an
 * array index goes out of bounds; pan reports an "invalid array index"
 * error. The bad access is a read whose value cannot affect the state. */
byte ring[3];
byte w;

active proctype Writer()
{
	do
	:: w < 3 -> ring[w] = w + 1; w++
	:: w == 3 -> w = 0
	:: w > 0 -> w = w - 1; ring[w] = 0
	od
}

active proctype Bad()
{
	(w == 2);
	if				/* reads index 4 of a 3-element array */
	:: ring[w + 2] > 0 -> skip
	:: else -> skip
	fi
}
