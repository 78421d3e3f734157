/* Exception handling with unless: a worker loop is aborted when an
 * alarm is raised; a nested unless inside the body handles a local
 * reset. Exercises unless, nested unless, and a label at body end. */
bool alarm, reset;
byte work, handled;

active proctype Worker()
{
	{
		{
			do
			:: work < 5 -> work++
			:: work >= 5 -> work = 0
			od
		} unless {
			reset -> handled = 1; reset = false
		};
		do
		:: work < 3 -> work++
		:: else -> skip
		od
	} unless {
		alarm -> handled = handled + 2
	};
	assert(alarm);
done:
}

active proctype Trigger()
{
	if
	:: reset = true
	:: skip
	fi;
	alarm = true
}
