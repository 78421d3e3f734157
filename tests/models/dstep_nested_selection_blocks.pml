/* Past its guard, a d_step's inner do whose options all block is pan's
   "blocking sel in d_step": the outer if's next option is not tried. */
bool b;
byte x;

active proctype p() {
  do
  :: x < 3 -> x++
  :: x == 3 -> d_step { if :: do :: b -> break od :: true -> x = 1 fi }
  od
}

active proctype q() {
  x > 1;
  b = true
}
