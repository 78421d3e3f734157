/* Peterson's two-process mutual exclusion with active [2], _pid,
 * bool arrays and a critical-section counter checked by assert.
 * Remote label reference P[i]@cs is used in a monitor process. */
bool flag[2];
pid turn;
byte incs;

active [2] proctype P()
{
	pid other = 1 - _pid;
again:
	flag[_pid] = true;
	turn = other;
	(flag[other] == false || turn == _pid);
cs:	incs++;
	assert(incs == 1);
	incs--;
	flag[_pid] = false;
	goto again
}

active proctype Monitor()
{
end:	do
	:: atomic { (P[0]@cs && P[1]@cs) -> assert(false) }
	od
}
