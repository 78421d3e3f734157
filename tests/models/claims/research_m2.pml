/* Model m2 of /work/shared/research/claims (pan-claims.md section 9). */
byte x;
active proctype P() {
  do
  :: x < 2 -> x++
  :: x == 2 -> x = 0
  od
}
ltl p2 { []<> (x == 2) }
