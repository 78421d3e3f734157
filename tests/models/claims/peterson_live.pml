/* Peterson's mutual exclusion with a liveness formula first: without fairness P[0] can
 * wait forever while P[1] enters again and again, an acceptance cycle (pan -a). */
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
ltl live { []<> P[0]@cs }
