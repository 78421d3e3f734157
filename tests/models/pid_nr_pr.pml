/* Dynamic process creation: run returns the new pid, which is stored
 * in a pid variable; _pid and _nr_pr are checked as processes start
 * and terminate (in reverse creation order). */
pid kids[3];
byte alive;

proctype Kid(pid parent; byte idx)
{
	assert(_pid == kids[idx] || kids[idx] == 0);
	assert(parent == 0);
	assert(_nr_pr <= 4)
}

init {
	byte i;
	assert(_pid == 0 && _nr_pr == 1);
	atomic {
		for (i : 0 .. 2) {
			kids[i] = run Kid(_pid, i)
		}
	}
	assert(kids[0] == 1 && kids[2] == 3);
	(_nr_pr == 1);
	pid again;
	again = run Kid(0, 0);
	assert(again == 1);
	(_nr_pr == 1)
}
