/* An ltl formula whose propositions are channel polls: spin keeps them in the formula's
 * text (to?[data,0]), and the claim polls the channels as it moves. The receiver may lose
 * a message, and the sender then waits forever: the formula fails by an acceptance cycle.
 * Written for git rmc's tests. */
mtype = { data, ack };
chan to = [1] of { mtype, byte };
chan back = [1] of { mtype, byte };
active proctype Sender() {
	byte n;
	do
	:: n < 2 -> to!data(n); back?ack(eval(n)); n++
	:: n == 2 -> n = 0
	od
}
active proctype Receiver() {
	byte v;
	do
	:: to?data(v) -> back!ack(v)
	:: to?data(v) -> skip
	od
}
ltl answered { [] (to?[data,0] -> <> back??[ack,_]) }
