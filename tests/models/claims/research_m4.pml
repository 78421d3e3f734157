/* Model m4 from the research on what pan does with claims (its section 9). */
byte x;
active proctype P() {
  x = 1;
  x = 2
}
ltl p { []<> (x == 0) }
