/* UNSUPPORTED (accept label in a trace): pan reads accept and progress
 * labels of an event trace in its searches for cycles (-a, -l), which
 * git rmc does not extend to traces. spin accepts the model. */
chan c = [1] of { byte };
active proctype P() { do :: c!1; c?_ od }
trace { accept: do :: c!1; c?1 od }
