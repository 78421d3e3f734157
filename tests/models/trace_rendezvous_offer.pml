/* pan checks a rendezvous send against the trace once per offer,
 * whether or not a receiver takes it: the offers of 1, which nobody
 * receives, are errors (no matching event) too. Where P stops before
 * sending 2, the trace is not completed (Q waits at an end label). */
chan c = [0] of { byte };
active proctype P() { do :: c!1 :: c!2 :: break od }
active proctype Q() { end: c?2 }
trace { c!2 }
