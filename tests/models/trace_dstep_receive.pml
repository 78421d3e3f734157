/* A d_step that starts with a rendezvous receive: its receive is an
 * event of the trace, before the rest of the d_step runs. The trace
 * has no transition for receiving 6. */
chan c = [0] of { byte };
byte got;
active proctype P() { c!5; c!6 }
active proctype Q() { end: do :: d_step { c?got; got++ } od }
trace { end: do :: c?5 :: c?7 od }
