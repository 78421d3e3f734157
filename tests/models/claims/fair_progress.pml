/* Non-progress cycles with weak fairness (-l -f): A passes a progress label on each round
 * while B and C flip bits without one. A run where only B and C move is a non-progress
 * cycle, unfair to A: pan -l finds it, pan -l -f does not. */
byte x;
bit b, c;
active proctype A() { do :: x < 3 -> progress: x++ :: x >= 3 -> x = 0 od }
active proctype B() { do :: b = !b od }
active proctype C() { do :: x > 0 -> c = !c :: else -> c = 0 od }
