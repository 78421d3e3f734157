/* set_priority accepts 1 and 255, the ends of pan's range 1..255 (see
 * priority_out_of_range.pml for the values it refuses). */
byte x;

active proctype A() { x < 2 -> x++ }

active proctype P() {
	set_priority(_pid, 255);
	assert(get_priority(_pid) == 255);
	x == 1;
	set_priority(_pid, 1);
	assert(get_priority(_pid) == 1);
	x = 7
}
