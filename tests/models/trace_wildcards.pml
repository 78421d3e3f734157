/* Fields of a trace's events: a constant (an mtype name too) and eval()
 * are compared with the message, a variable, `_` or an expression is
 * matched by anything. The second round sends ack,3 where the trace
 * wants ack,2 (no matching event), and sends may run ahead of the
 * receives the trace wants between them (no matching event either, and
 * the trace is not completed where the system ends). */
mtype = { req, ack };
chan c = [2] of { mtype, byte };
byte x = 1;
active proctype P() { c!req,1; c!ack,2; c!req,x+5; c!ack,3 }
active proctype Q() { mtype m; byte b; end: do :: c?m,b od }
trace { end: do :: c!req,_; c?_,eval(x); c!ack,2; c?ack,x od }
