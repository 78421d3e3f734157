/* UNSUPPORTED (pc_value outside a never claim): a monitor process
 * reads another process's control state number with pc_value(pid).
 * git rmc only allows pc_value inside never claims. */
byte x;

active proctype Stepper()
{
	x = 1;
	x = 2;
	x = 3
}

active proctype Monitor()
{
	(pc_value(0) > 2);
	assert(x >= 1)
}
