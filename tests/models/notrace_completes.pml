/* The notrace forbids the sends 1, 2, 1 on c, and P makes them.
 * pan: "event_trace error (all events matched)" at the last send; Q
 * blocks outside an end label (an invalid end state as well). */
chan c = [2] of { byte };
active proctype P() { c!1; c!2; c!1 }
active proctype Q() { byte v; do :: c?v od }
notrace { c!1; c!2; c!1 }
