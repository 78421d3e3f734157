/* Weak fairness with provided clauses: pan applies rule 2 to a process before its provided
 * clause shuts it out, and leaves it at once (no undo, no new pass). */
byte x, y;
active proctype A() provided (y < 2) { do :: x = 1 :: y < 3 -> y++ od }
active proctype B() { do :: x = 2 :: y > 0 -> y-- od }
active proctype C() provided (x != 2) { do :: x = 0 od }
ltl p { []<> (x == 2) }
