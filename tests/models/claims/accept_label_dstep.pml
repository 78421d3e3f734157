byte x, y;
active proctype P() { do :: d_step { x < 2 -> x++; y = x } :: x == 2 -> accept: x = 0 od }
active proctype Q() { do :: y > 0 -> atomic { y--; progress: skip } od }
ltl v { []<> (y == 0) }
