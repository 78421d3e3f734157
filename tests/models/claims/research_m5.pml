/* Model m5 of /work/shared/research/claims (pan-claims.md section 9). */
byte x;
active proctype P() {
  do
  :: x < 3 -> x++
  :: x == 3 -> break
  od
}
never { do :: x != 2 :: x == 2 -> break od }
