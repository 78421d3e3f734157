/* Weak fairness with processes created and ending: init starts two workers and a third
 * once the first two are done; pan's counter is set from the number of processes at the
 * accepting state. */
byte x, done;
proctype W(byte v) { x = v; done++ }
init {
  run W(1); run W(2);
  done == 2 -> run W(3);
  do :: x = 1 :: x = 2 od
}
ltl p { []<> (x == 3) }
