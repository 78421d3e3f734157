/* Model m1 from the research on what pan does with claims (its section 9). */
byte x;
active proctype P() {
  do
  :: x < 3 -> x++
  :: x == 3 -> x = 0
  od
}
ltl p1 { [] (x < 3) }
ltl p2 { []<> (x == 3) }
