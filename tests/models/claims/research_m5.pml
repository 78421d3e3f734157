/* Model m5 from the research on what pan does with claims (its section 9). */
byte x;
active proctype P() {
  do
  :: x < 3 -> x++
  :: x == 3 -> break
  od
}
never { do :: x != 2 :: x == 2 -> break od }
