/* Found by the randomized comparison with pan: a timeout inside an atomic sequence
   that a timeout entered; its trail replays only in a timeout pass (a replay that
   tried plain passes alone stopped with an internal error). */
int g0;
bool b1;
byte g2;
chan c0 = [2] of {byte};
chan c1 = [1] of {byte};
active proctype p0() {
  progress_y: skip
}
active proctype p1() {
  byte l;
  progress_x: false;
  L0: g2 = 0
}
active proctype p2() {
  do
  :: true ->
    atomic {
      timeout;
      if
      :: timeout ->
        goto L0
      :: select(g2 : 0..2) ->
        goto L0
      fi;
      L0: if
      :: assert(b1) ->
        skip
      :: g0 = 1
      fi
    }
  od
}
never f0 {
T0_init:
  do
  :: (len(c0) > 0) -> goto T0_init
  :: (g2 != 1) -> goto accept_S1
  od;
accept_S1:
  do
  :: !b1 -> goto T0_init
  :: g2 != 2 -> goto accept_S1
  :: g2 != 2 -> goto accept_S1
  od
}
