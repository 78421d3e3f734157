/* An accept label in a proctype under weak fairness, with a claim that has no accepting
 * state: pan -a takes a product state as accepting when any process is at an accept label.
 * A passes its label while x != 2, B sets x to 2. A cycle where B alone moves after A
 * reached its label starves A; the cycle where A and B alternate (A: x != 2, B: x = 2, A:
 * x = 1, ...) is fair: -a -f finds it, later than -a (18 visits against 8). */
byte x;
active proctype A() { do :: x != 2 -> accept: x = 1 od }
active proctype B() { do :: x = 2 od }
never { do :: true od }
