/* A never claim that detects a bad state: the gate is opened while the
 * train is still crossing. The model is wrong on purpose, so the
 * safety run ends the claim and reports a violation. */
bool gateOpen = false, crossing = false;

active proctype Train()
{
	do
	:: !gateOpen -> crossing = true; crossing = false
	:: gateOpen -> skip
	od
}

active proctype Gate()
{
	do
	:: gateOpen = !gateOpen
	od
}

never {
	do
	:: !(gateOpen && crossing)
	:: gateOpen && crossing -> break
	od
}
