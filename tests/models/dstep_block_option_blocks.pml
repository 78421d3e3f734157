/* An option that opens a block does not guard: its first statement blocking
   past the d_step's guard is pan's "block in d_step seq". */
byte a, x;

active proctype p() {
  x < 2;
  d_step { if :: { a > 0; x = 2 } :: x < 5 -> x = 1 fi }
}

active proctype q() {
  x++;
  x++;
  a = 1
}
