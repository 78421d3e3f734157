/* A never claim and an event trace in one model: pan runs the trace in
 * every search, the claim's included, and reports its errors at the
 * system's steps; that it is not complete where the system ends (it has
 * no end label) is never reported with a claim (pan checks end states
 * only without one). P's last send (2) has no matching event. */
chan c = [1] of { byte };
byte x;
active proctype P() { do :: x < 3 -> c!1; x++ :: x == 3 -> c!2; break od }
active proctype Q() { end: do :: c?_ od }
ltl p { [] (x <= 3) }
trace { do :: c!1 :: c!3 od }
