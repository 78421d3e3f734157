/* A buffered channel and a counter that can grow without bound under a response formula:
 * acceptance cycles deep in the search (pan -a finds the first at depth 2032). */
mtype = { req, ack };
chan q = [1] of { mtype };
byte n;
active proctype Client() {
  do
  :: q!req -> n++
  :: n > 0 -> n--
  od
}
active proctype Server() {
end: do
  :: q?req -> skip
  od
}
ltl live { [] (n < 3 -> <> (n == 0)) }
