/* The system ends: pan -l stutters, and np_ is false while it does (no cycle). */
byte x;
active proctype P() {
  x = 1;
  x == 0
}
