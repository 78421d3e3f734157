/* A process blocks inside its atomic sequence: the claim moves from that state, which pan
 * stores, and every process may move after it. */
byte x, y;
active proctype A() {
  do
  :: atomic { x < 3 -> x++; y == x; y = 0 }
  :: x == 3 -> x = 0
  od
}
active proctype B() {
  do
  :: y < x -> y++
  od
}
ltl p { [] (x <= 3 && y <= 3) }
