/* set_priority with a value outside 1..255: pan reports "priority is out of
 * range" and ends the whole search. 1 and 255 are accepted (see
 * priority_range_bounds.pml); 0, 256, 300 and -1 are not. */
byte x;

active proctype A() { x < 2 -> x++ }

active proctype P() {
	x == 1;
	set_priority(_pid, 300);
	x = 7
}
