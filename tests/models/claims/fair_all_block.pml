/* Weak fairness when every process blocks: A and B set x and stop at a guard that never
 * holds; the claim of []<>(x == 0) then stutters in its accepting state. pan's counter
 * takes its "default move" (the same state, counter 1) before the claim stutters, and the
 * stutter cycle is a fair one: reported with -f too. */
byte x;
active proctype A() { x = 1; x == 9 }
active proctype B() { x = 2; x == 9 }
ltl p { []<> (x == 0) }
