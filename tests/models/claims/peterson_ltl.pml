/* Peterson's mutual exclusion with its safety as an ltl formula on remote labels, and a
 * liveness formula after it (the first claim is the one checked). */
bool flag[2];
pid turn;
active [2] proctype P() {
  pid other = 1 - _pid;
again:
  flag[_pid] = true;
  turn = other;
  (flag[other] == false || turn == _pid);
cs:
  flag[_pid] = false;
  goto again
}
ltl mutex { [] !(P[0]@cs && P[1]@cs) }
ltl live { []<> P[0]@cs }
