/* pan -a -f without a never claim: a rendezvous, whose receiver gets rule 2 as its receive
 * completes; three processes. */
chan c = [0] of { byte };
byte got;

active proctype Sender()
{
accept:
	do
	:: c!1
	:: c!2
	od
}

active proctype Receiver()
{
	do
	:: c?got
	od
}

active proctype Idle()
{
	do
	:: got > 0 -> got = 0
	od
}
