/* Weak fairness, a rendezvous offered inside an atomic sequence and taken by a receive: pan
 * applies rule 2 to the receiver as its receive completes (random model r10). */
byte x, y;
chan c = [0] of { byte };
chan q = [1] of { byte };
active proctype P0() {
  do
  :: c?x
  :: y < 3 -> y++
  od
}
active proctype P1() { q?_; y = 1 }
active proctype P2() {
  do
  :: atomic { c!2; y > 0 -> y-- }
  :: y = 2
  :: y = 1
  od
}
active proctype P3() {
  do
  :: c!2
  :: x = 1
  :: y < 3 -> y++
  od
}
ltl p { [] (x == 1 -> <> (y == 2)) }
