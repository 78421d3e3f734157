/* A process created during the search takes the model over pan -f's limit: pan stops
 * there ("too many processes"); without -f the search goes on. */
byte x;
bit spawned;
proctype Q() { x = 9 }
active [5] proctype P() {
  do
  :: x = _pid
  :: _pid == 0 && x == 3 && !spawned -> spawned = 1; run Q()
  od
}
ltl p { []<> (x == 4) }
