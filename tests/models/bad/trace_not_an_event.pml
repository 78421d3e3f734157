/* A trace holds only sends, receives and control flow: an assignment
 * is "not an event" to spin. */
chan c = [1] of { byte };
byte y;
active proctype P() { c!1 }
trace { c!1; y = 1 }
