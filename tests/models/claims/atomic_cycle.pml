/* Acceptance cycles through atomic sequences and a rendezvous: the claim moves only after
 * each atomic run; x == 0 stops holding for good on some runs. */
chan c = [0] of { byte };
byte x;
active proctype A() {
  do
  :: atomic { x < 2 -> x++; x++ }
  :: c!x
  :: x > 0 -> x--
  od
}
active proctype B() {
  byte v;
end:
  do
  :: c?v -> atomic { x = v; v = 0 }
  od
}
ltl p { []<> (x == 0) }
