/* Both processes move into states of the first search's stack from the nested search, twice
 * each (its stack bit stays set where the cycle was reported): pan's nShadow ends below zero,
 * and pan then prints nstates as stored. ./pan -a -c0: 4 stored, 6 matched, 10 transitions,
 * depth 5, an acceptance cycle. */
byte g;
active [2] proctype P() { do :: g == 0 od }
never f0 {
T0:
  do :: goto T1 od;
accept:
  do :: goto T0 :: goto T1 od;
T1:
  do :: goto accept od
}
