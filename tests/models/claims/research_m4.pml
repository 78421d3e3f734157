/* Model m4 of /work/shared/research/claims (pan-claims.md section 9). */
byte x;
active proctype P() {
  x = 1;
  x = 2
}
ltl p { []<> (x == 0) }
