/* Model m6-f2 of /work/shared/research/claims (pan-claims.md section 9). */
byte x;
active proctype A() { do :: x = 1 od }
active proctype B() { do :: x = 2 od }
ltl p { []<> (x == 3) }
