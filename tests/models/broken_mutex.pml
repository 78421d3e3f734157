/* A naive test-then-set lock: the test and the set are separate steps,
 * so two processes can both enter. Expected: assertion violation.
 * Exercises active [N] with _pid and a shared byte counter. */
bit locked = 0;
byte inside = 0;

active [3] proctype User()
{
	do
	:: locked == 0 ->
		locked = 1;
		inside++;
		assert(inside <= 1);
		inside--;
		locked = 0
	od
}
