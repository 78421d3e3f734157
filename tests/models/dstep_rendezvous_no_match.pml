/* The receive that starts the d_step has a constant the sender's message
 * does not match: the d_step is never executable, both processes block in
 * the initial state (pan: invalid end state "at depth -1"). */
chan c = [0] of { byte };
byte x;

active proctype S() { c ! 5 }

active proctype R() { d_step { c ? 6; x = x + 1 } }
