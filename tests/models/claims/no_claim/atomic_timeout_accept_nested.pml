/* Found by the randomized comparison with pan -a (no claim): an atomic loop at
   timeout in two processes, met again in the nested search; no atomic run is
   non-terminating (each round blocks at the inner timeout). */
byte g0;
chan c0 = [1] of {byte};
active proctype p0() {
  accept_x: do
  :: true ->
    end_x: g0 != 1;
    skip;
    d_step {
      g0 != 2;
      g0 = (g0+1)%3;
      g0 = 0
    };
    if
    :: g0 = 0 ->
      if
      :: c0!g0 ->
        c0?g0
      :: g0 = 0
      :: true ->
        goto end_x
      fi;
      g0 = 1
    :: full(c0)
    fi;
    assert(g0 != 0)
  od
}
proctype q0(byte x) {
  do
  :: true ->
    g0 = 0;
    progress_x: atomic {
      timeout;
      x == 1;
      accept_x: do
      :: true ->
        L0: timeout
      od
    }
  od
}
init {
  atomic { run q0(0); run q0(1) };
  (_nr_pr == 1) -> g0 = 1
}
