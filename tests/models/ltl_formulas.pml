/* Several ltl formulas (safety and liveness) next to a simple bounded
 * counter. They are parsed and translated; the safety run uses the
 * first one, which holds. */
byte x;
bool up = true;

active proctype Osc()
{
	do
	:: up && x < 3 -> x++
	:: up && x == 3 -> up = false
	:: !up && x > 0 -> x--
	:: !up && x == 0 -> up = true
	od
}

ltl bounded { [] (x <= 3) }
ltl returns { [] (x == 3 -> <> (x == 0)) }
ltl mixed   { []<> up && (x == 0 U x == 1) || !(<> (x > 5)) }
