/* Model m10 from the research on what pan does with claims (its section 9). */
byte x;
active proctype P() {
  do
  :: x < 2 -> x++
  :: timeout -> x = 0
  od
}
ltl p { []<> (x == 1) }
