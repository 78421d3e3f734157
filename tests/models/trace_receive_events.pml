/* The trace watches the receives from c and the sends to d only: P's
 * sends to c, its receive from d and everything on e are not events of
 * the trace. Q's second receive takes 7 where the trace wants 1 (no
 * matching event). */
chan c = [2] of { byte };
chan d = [2] of { byte };
chan e = [1] of { byte };
active proctype P() { c!1; d!2; e!4; c!7; d?_; e?_ }
active proctype Q() { byte v; c?v; c?v }
trace { end: do :: c?1 :: d!2 od }
