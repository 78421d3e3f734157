/* A hand-written claim with an accept label, else, and an atomic step, over a system that
 * needs timeout: the claim's atomic move keeps its turn, the blocked system asks for timeout. */
byte x, y;
active proctype P() {
  do
  :: x < 3 -> x++
  :: timeout -> x = 0; y = 1 - y
  od
}
active proctype Q() {
end: do
  :: atomic { y == 1 -> y = 0; x = 1 }
  od
}
never {
T0:
  do
  :: atomic { x == 3 -> goto accept_a }
  :: else -> goto T0
  od;
accept_a:
  do
  :: x != 0 -> goto accept_a
  :: x == 0 && y == 1 -> goto T0
  od
}
