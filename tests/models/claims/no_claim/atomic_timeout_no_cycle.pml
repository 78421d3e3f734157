/* An atomic that blocks inside and a timeout at an accept label: no cycle under pan -a. */
byte x;
active proctype A() { do :: atomic { x < 2 -> x++; x == 5 } :: accept: timeout -> x = 0 od }
active proctype B() { do :: x == 1 -> x = 2 :: x > 3 -> break od }
