/* pan -a -f without a never claim: an atomic sequence blocks halfway, and the state it
 * blocked in is stored and entered afresh (rules 1 and 3 again). */
byte x, y;

active proctype A()
{
accept:
	do
	:: atomic { x == 0 -> x = 1; y == 1 -> x = 0 }
	od
}

active proctype B()
{
	do
	:: x == 1 -> y = 1 - y
	od
}
