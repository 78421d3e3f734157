/* P blocks for ever; the claim stutters from accept to T1, where it blocks (b stays false).
 * No run is accepted. In the nested search from the stutter at accept, the state at T1 asks
 * for timeout: pan leaves it without unmarking it on the nested search's stack, meets it
 * again when the claim moves with timeout, and reports "acceptance cycle (at depth 2)",
 * which its own trail does not show (the trail ends at T1, no start of cycle). git rmc
 * counts as pan counts (./pan -a -c0: 3 stored, 4 visited, 0 matched, 4 transitions,
 * depth 2) and reports no cycle. */
bool b;
active proctype P() { false; timeout }
never f0 {
  do :: goto accept od;
accept:
  do :: goto T1 od;
T1:
  do :: b od
}
