/* set_priority of a pid that names no process is ignored (no error). pan's
 * figures here are not Promela's: its set_priority returns before saving the
 * undo information for a bad pid, and undoing the step then restores a stale
 * priority, so later successors of earlier states are computed with a wrong
 * priority (it explores 12 states where the model has 16). Only the verdict
 * is compared. */
byte x;

active proctype A() { x < 2 -> x++ }

active proctype P() {
	set_priority(_pid, 255);
	assert(get_priority(_pid) == 255);
	x == 1;
	set_priority(_pid, 1);
	assert(get_priority(_pid) == 1);
	set_priority(9, 300);
	x = 7
}
