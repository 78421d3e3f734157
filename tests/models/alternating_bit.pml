/* Alternating-bit protocol over lossy buffered channels; losses are
 * modelled by a nondeterministic drop in the medium process. The
 * receiver asserts in-order delivery. Uses mtype, inline and unless. */
mtype = { msg, ack };
#define MAXSEQ 3

chan s2m = [1] of { mtype, bit, byte };
chan m2r = [1] of { mtype, bit, byte };
chan r2s = [1] of { mtype, bit };

inline advance(b, n) {
	b = 1 - b;
	n++
}

active proctype Sender()
{
	bit b;
	byte n;
	do
	:: n < MAXSEQ ->
		s2m ! msg, b, n;
		if
		:: r2s ? ack, eval(b) -> advance(b, n)
		:: r2s ? ack, eval(1 - b) -> skip
		:: timeout
		fi
	:: n == MAXSEQ -> break
	od
}

active proctype Medium()
{
	bit b; byte n;
end:	do
	:: s2m ? msg, b, n ->
		if
		:: m2r ! msg, b, n
		:: skip			/* lost */
		fi
	od
}

active proctype Receiver()
{
	bit b, expect;
	byte n, next;
end:	do
	:: m2r ? msg, b, n ->
		if
		:: b == expect -> assert(n == next); advance(expect, next)
		:: else -> skip
		fi;
		r2s ! ack, b
	od
}
