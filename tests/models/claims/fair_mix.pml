/* Weak fairness with d_step, unless, else and four processes: a token passes between
 * three workers, a fourth resets it; x records who held it last. */
byte tok, x, n;
active [3] proctype W() {
  do
  :: tok == _pid -> d_step { x = _pid; tok = (_pid + 1) % 3 }
  :: else -> skip
  od
}
active proctype R() {
  do
  :: n < 2 -> { n++; tok = 0 } unless { x == 2 -> n = 0 }
  :: n >= 2 -> n = 0
  od
}
ltl p { []<> (x == 2) }
