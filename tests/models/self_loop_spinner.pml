/* A busy-wait process written as an unconditional self-loop
 * (do :: skip od). spin -a accepts it, but the generated pan refuses
 * to run ("has unconditional self-loop"): the oracle is unusable. */
byte ticks;

active proctype Spinner()
{
	do
	:: skip
	od
}

active proctype Ticker()
{
	do
	:: ticks < 2 -> ticks++
	:: else -> break
	od
}
