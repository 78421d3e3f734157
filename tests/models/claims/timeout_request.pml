/* A system that needs timeout to go on, checked against an ltl claim: a blocked system
 * first asks the claim's turn to move again with timeout true (pan's ETIM request). */
byte x, y;
active proctype P() {
  do
  :: x < 2 -> x++
  :: timeout -> x = 0; y = (y + 1) % 3
  od
}
active proctype Q() {
  do
  :: y == 2 -> y = 0
  od
}
ltl p { []<> (x == 1) }
