/* An unless that ends an atomic sequence leaves none of its statements last:
   control stays through the main part's last statement and the escape's, and
   the sequence is left at the step after it (pan's .(goto) of the do). */
byte g;

active proctype p() {
  do
  :: atomic { g = 1; { g = (g + 1) % 3 } unless { g == 2; g = 0 } }
  od
}

active proctype q() {
  do
  :: g = 1
  :: g = 2
  od
}
