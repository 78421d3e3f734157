/* The trace expects 1 and 2 to alternate on c; P sends 1 twice.
 * pan: "event_trace error (no matching event)" at the second send, and
 * where the system ends with the trace waiting for 2, "event_trace not
 * completed" (an invalid end state: Q waits at an end label). */
chan c = [2] of { byte };
active proctype P() { c!1; c!1 }
active proctype Q() { byte v; end: do :: c?v od }
trace { do :: c!1; c!2 od }
