/* pan -a -f without a never claim, with timeout in the model: A's accept loop waits for B
 * through timeout; the fairness rules run over the pass with timeout too. */
byte n;

active proctype A()
{
accept:
	do
	:: timeout -> n = 0
	:: n < 2 -> n++
	od
}

active proctype B()
{
	do
	:: n == 2 -> n = 3
	od
}
