/* A model has one event trace at most: a notrace after a trace is
 * spin's "trace :trace: redefined". */
chan c = [1] of { byte };
active proctype P() { c!1 }
trace { c!1 }
notrace { c!2 }
