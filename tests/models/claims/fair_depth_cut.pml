/* Weak fairness, the system blocked for ever: in the nested search the first search's stack
 * is met with the fairness counter above 1 ("fairness count non-zero": a new state), so the
 * stutter descends until pan's depth limit; below it the claim's second option closes a fair
 * cycle. ./pan -a -f -c0 -m20: 17 stored (21 visited), 21 matched, 42 transitions, depth 19,
 * an acceptance cycle at depth 2. (Without a limit the search does not end, in pan either.) */
active proctype p0() {
  false
}
never f0 {
T0_init:
  do
  :: true -> goto T0_init
  :: true -> goto accept_S1
  od;
accept_S1:
  do
  :: true -> goto T0_init
  :: skip
  od
}
