/* pan -a -f without a never claim: an accept label in a loop of A while B loops too, so
 * the cycle through A's accept label is fair. Rules 1-3 counted over the two processes
 * (pan numbers them 0 and 1, no claim before them). */
byte x;

active proctype A()
{
accept:
	do
	:: x = 1 - x
	od
}

active proctype B()
{
	do
	:: x < 2 -> skip
	od
}
