/* A counting barrier for three processes built from atomic sections;
 * the last arriving process releases the others. _last is checked in
 * an assertion and the phase counter in a never claim. */
#define N 3
byte arrived, phase;

active [N] proctype Party()
{
	byte myphase;
	do
	:: myphase < 2 ->
		atomic {
			arrived++;
			if
			:: arrived == N -> arrived = 0; phase++
			:: else
			fi;
			assert(_last == _pid)	/* inside the atomic: our own step */
		}
		(phase > myphase);
		myphase++
	:: else -> break
	od
}

never {
	do
	:: phase > 2 -> break
	:: else
	od
}
