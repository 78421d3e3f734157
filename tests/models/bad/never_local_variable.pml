/* A never claim with a variable of its own: spin rejects it ("never_0 defines local i"). */
byte x;
active proctype A() { do :: x = 1 - x od }
never { do :: atomic { int i = x; assert(i < 2) } od }
