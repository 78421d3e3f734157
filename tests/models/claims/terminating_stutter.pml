/* Processes that end, under a hand-written claim with else: once the system has ended the
 * claim stutters (moves with the system unchanged), and it reaches its closing brace only
 * then. */
byte x;
chan c0 = [1] of { bit };
active proctype A() { byte k = 1; x = x + k; x = x + 1; k = 0 }
active proctype B() { x = x + 2; c0!1; c0?_ }
never {
  do
  :: x < 4
  :: else -> break
  od;
  len(c0) == 0;
  true;
  true
}
