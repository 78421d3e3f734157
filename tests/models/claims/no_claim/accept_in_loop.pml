/* An accept label in a loop, no claim: pan -a finds the cycle through it. */
byte x;
active proctype P() { do :: x < 3 -> x++ :: x == 3 -> accept: x = 0 od }
