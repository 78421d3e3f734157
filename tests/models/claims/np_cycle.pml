/* A non-progress cycle (pan -l): x may fall back to 0 from 1 without passing progress. */
byte x;
active proctype P() {
  do
  :: x < 3 -> x++
  :: x == 3 -> progress: x = 0
  :: x == 1 -> x = 0
  od
}
