/* The claim stutters into accept_S33 (P1 never moves): the nested search from that stutter
 * stores its state first (the first search stores only states where the claim moves next,
 * or that a stutter reaches), and the first search reaches it later by the other option at
 * T0_init: pan explores it then (its first-search visit bit is unset; nShadow++). ./pan -a
 * -c0: 2 stored (3 visited), 2 matched, 5 transitions, depth 2, an acceptance cycle. */
byte g;
active proctype P1() { false }
never f0 {
T0_init:
  do :: goto accept_S33 :: goto T0_init od;
accept_S33:
  do :: goto T0_init od
}
