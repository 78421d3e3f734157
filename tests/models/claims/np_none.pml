/* No non-progress cycle (pan -l): every cycle passes the progress label. */
byte x;
active proctype P() {
  do
  :: x < 3 -> x++
  :: x == 3 -> progress: x = 0
  od
}
