/* x = 1, then blocked at an accept label: pan -a reports an accept stutter. */
byte x;
active proctype P() { x = 1; accept: x == 0 }
