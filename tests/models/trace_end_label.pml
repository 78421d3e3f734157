/* An end label inside the trace: the system may end with the trace
 * there. P sends 1, then maybe 2, then maybe 3; the trace accepts 1 (at
 * its end label) and 1 2 3 (at its end), not 1 2 (not completed: R,
 * blocked at an end label, keeps the system from ending with no
 * process) and not 1 3 (no matching event). */
chan c = [3] of { byte };
chan d = [0] of { byte };
active proctype P() { c!1; if :: c!2 :: skip fi; if :: c!3 :: skip fi }
active proctype R() { end: d?_ }
trace { c!1; end: c!2; c!3 }
