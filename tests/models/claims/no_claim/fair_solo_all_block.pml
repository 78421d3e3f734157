/* pan -a -f without a never claim: A waits at an accept label for what never comes, and B
 * has ended. Nothing moves: with the counter running, pan takes its default move (the same
 * state, counter 1) before the accept stutter. */
byte x;

active proctype A()
{
	x = 1;
accept:
	x == 5
}

active proctype B()
{
	x == 1 -> x = 2
}
