/* Events inside atomic sequences and a d_step move the trace as any
 * other: Q's send of 3 may come between P's sends and receives. */
chan c = [3] of { byte };
byte n;
active proctype P() { atomic { c!1; c!2 }; d_step { c?_; c?_ }; n++ }
active proctype Q() { atomic { c!3; n++ } }
trace { end: do :: c!1; c!2; c?1; c?2 :: c!3 od }
