/* Processes that block at valid end states, one of them at an accept label: pan -a reports
 * an accept stutter there (invalid end states are not checked under -a). */
byte x;
active proctype A() { x = 1; end: x == 2 }
active proctype B() { do :: x == 1 -> x = 3 :: x == 3 -> break od; accept: x == 4 }
