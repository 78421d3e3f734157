/* A label at the end of the trace is a `skip`, which pan's trace takes
 * on any event: the second send moves the trace to its end, and the
 * third, which fills the channel, never happens (P blocks: an invalid
 * end state, with the trace complete). */
chan c = [2] of { byte };
active proctype P() { c!1; c!2; c!3 }
trace { c!1; end: }
