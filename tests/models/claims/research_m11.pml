/* Model m11 from the research on what pan does with claims (its section 9). */
byte g;
active [2] proctype P() { byte i; do :: i < 3 -> i++ :: i == 3 -> i = 0; g = _pid od }
ltl p { []<> (g == 1) }
