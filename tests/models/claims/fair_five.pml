/* Five processes and the claim, the most pan -f takes (-DNFAIR=2): each sets x to its pid;
 * []<>(x == 4) holds on every weakly fair run. */
byte x;
active [5] proctype P() { do :: x = _pid od }
ltl p { []<> (x == 4) }
