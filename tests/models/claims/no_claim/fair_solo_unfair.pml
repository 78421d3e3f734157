/* pan -a -f without a never claim: A's accept loop runs while B, enabled all along, never
 * moves; once B moves, A leaves the loop. -a finds the cycle, -a -f does not (it starves
 * B). */
bit stop;

active proctype A()
{
accept:
	do
	:: stop == 0 -> skip
	:: stop == 1 -> break
	od
}

active proctype B()
{
	stop = 1
}
