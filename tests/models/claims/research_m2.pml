/* Model m2 from the research on what pan does with claims (its section 9). */
byte x;
active proctype P() {
  do
  :: x < 2 -> x++
  :: x == 2 -> x = 0
  od
}
ltl p2 { []<> (x == 2) }
