/* A sender/receiver pair decorated with progress, accept and end
 * labels (with suffixes); in the safety run only end labels matter,
 * the others must still parse and appear in the state tables. */
chan c = [1] of { byte };

active proctype Snd()
{
	byte i;
end_idle:
	do
	:: i < 3 ->
progress_send:	c ! i; i++
	:: i == 3 -> i = 0
	od
}

active proctype Rcv()
{
	byte v, last = 255;
endloop:
	do
	:: c ? v ->
accept_seen:	assert(v == (last + 1) % 3 || last == 255 || v == 0);
		last = v
	od
}
