byte x;
active proctype P() { do :: atomic { x < 3 -> x++; accept: x > 0 -> x++ } :: x >= 3 -> x = 0 od }
ltl p { []<> (x == 0) }
ltl q { [] (x < 5) }
