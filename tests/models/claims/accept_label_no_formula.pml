byte x;
active proctype P() { accept: do :: x = 1 - x od }
active proctype Q() { do :: atomic { x == 1 -> accept_q: x = 0; x = 1 } od }
never { do :: true od }
