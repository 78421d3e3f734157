/* Weak fairness with priorities: a process a higher priority shuts out is left as pan leaves
 * a provided clause's (rule 2 stays until the pass is over). */
byte x;
active proctype A() priority 2 { do :: x = 1 :: x == 1 -> x = 3 od }
active proctype B() { do :: x = 2 od }
active proctype C() priority 3 { do :: x == 3 -> x = 0 od }
ltl p { []<> (x == 2) }
