/* Weak fairness with a process that blocks forever: A and B overwrite x for ever, C waits
 * for x == 5, which never holds. []<>(x == 2) fails on the run where only A moves, which is
 * unfair to B; C is never enabled, so no fair run needs it to move: with -f the formula
 * holds. (pan's counter passes C without a move and tries every process again.) */
byte x;
active proctype A() { do :: x = 1 od }
active proctype B() { do :: x = 2 od }
active proctype C() { x == 5 -> x = 0 }
ltl p { []<> (x == 2) }
