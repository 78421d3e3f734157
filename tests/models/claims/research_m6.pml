/* Model m6 from the research on what pan does with claims (its section 9). */
byte x;
active proctype A() { do :: x = 1 od }
active proctype B() { do :: x = 2 od }
ltl p { []<> (x == 2) }
