/* Weak fairness with rendezvous offers nobody takes: pan's unsend leaves no move behind,
 * so a turn of failed offers takes the default move (random model r2). */
byte x, y;
chan c = [0] of { byte };
chan q = [1] of { byte };
active proctype P0() {
  do
  :: atomic { q?_; x > 0 -> x-- }
  od
}
active proctype P1() {
  do
  :: q!1
  :: c!2
  :: y == 3 -> skip
  od
}
ltl p { <>[] (y != 0) }
