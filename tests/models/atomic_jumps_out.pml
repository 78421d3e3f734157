/* Jumps out of atomic sequences into loops elsewhere (the goto is folded into the loop's
 * header, as pan does), labels on a break that a remote reference names (pan gives them a
 * state of their own), and a select whose variable name has an underscore (spin then uses
 * its loop form, break option first). */
mtype = { data, ack };
chan link = [2] of { mtype, byte };
byte seq_no, got;

active proctype Receiver()
{
	byte m;
Idle:
	do
	:: atomic { link?data(m) ->
		got++;
		if
		:: m == seq_no -> seq_no = (seq_no + 1) % 3; goto Busy
		:: else -> goto Idle
		fi
	   }
	:: got > 2 -> done: break
	od;
	goto Fin;
Busy:
	do
	:: link!ack(seq_no) -> goto Idle
	:: empty(link) -> skip
	od;
Fin:
	skip
}

active proctype Sender()
{
	byte next_v;
	select (next_v : 0 .. 2);
	link!data(next_v);
	link?ack(_)
}

active proctype Watch()
{
	Receiver[0]@done -> assert(got > 2)
}
