/* else is no event: spin rejects it in a trace. */
chan c = [1] of { byte };
active proctype P() { c!1 }
trace { if :: c!1 :: else -> c!2 fi }
