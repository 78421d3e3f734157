/* A d_step whose assertion fails and which then blocks: pan reports the assertion
 * violation first, then "block in d_step seq", which ends the search. */
byte x, y;

active proctype counter()
{
	do
	:: y < 3 -> y++
	:: y == 3 -> break
	od
}

active proctype p()
{
	y == 2;
	d_step { x = 1; assert(x == 0); x == 2 }
}
