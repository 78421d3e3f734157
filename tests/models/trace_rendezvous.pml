/* A rendezvous is two events: the send, then the receive. Two
 * receivers may take each message; the trace wants every message
 * received as 1, so the receive of 2 (by Q or R) has no matching
 * event, reported at the receive, and the trace, left waiting for a
 * receive of 1, is not completed when the system ends. */
chan c = [0] of { byte };
active proctype P() { c!1; c!2 }
active proctype Q() { byte v; end: do :: c?v od }
active proctype R() { end: do :: c?2 od }
trace { end: do :: c!1; c?1 :: c!2; c?1 od }
