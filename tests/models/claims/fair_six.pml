/* Six processes and the claim: more than pan -f takes; pan stops with "too many processes
 * -- current max is 6 procs (-DNFAIR=2)". Without -f an acceptance cycle starves P5. */
byte x;
active [6] proctype P() { do :: x = _pid od }
ltl p { []<> (x == 5) }
