/* Two options of the trace match the send of 1 (a constant, and a
 * variable that matches anything): pan's fatal "non-determinism in
 * event-trace" ends the search at once. */
chan c = [2] of { byte };
byte x;
active proctype P() { c!2; c!1 }
trace { c!2; if :: c!1 :: c!x fi }
