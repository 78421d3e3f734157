/* Model m10 of /work/shared/research/claims (pan-claims.md section 9). */
byte x;
active proctype P() {
  do
  :: x < 2 -> x++
  :: timeout -> x = 0
  od
}
ltl p { []<> (x == 1) }
