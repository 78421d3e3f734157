/* Process priorities: active proctypes with a priority clause, run
 * with an explicit priority, and get_priority / set_priority calls.
 * Priorities are only checked for value here, not for scheduling. */
byte order;

active proctype Low() priority 1
{
	assert(get_priority(_pid) == 1);
	order++
}

active [2] proctype Mid() priority 3
{
	byte p;
	p = get_priority(_pid);
	assert(p == 3);
	set_priority(_pid, 4);
	assert(get_priority(_pid) == 4);
	order++
}

proctype Late(byte tag)
{
	assert(get_priority(_pid) == 2 && tag == 9);
	order++
}

init {
	run Late(9) priority 2;
	(order == 4)	/* _nr_pr == 1 would never hold: pid 0 cannot exit first */
}
