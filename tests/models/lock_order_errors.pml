/* Two locks taken in opposite orders plus an overly strict invariant:
 * pan (with -c0) finds both an assertion violation and an invalid end
 * state (deadlock). Locks are modelled with atomic test-and-set. */
bool la, lb;
byte holders;

inline lock(l)   { atomic { !l -> l = true } }
inline unlock(l) { l = false }

active proctype T1()
{
	lock(la);
	lock(lb);
	holders++;
	assert(holders == 1);
	holders--;
	unlock(lb);
	unlock(la)
}

active proctype T2()
{
	lock(lb);
	holders++;
	assert(!la);		/* too strict: T1 may hold la */
	lock(la);
	holders--;
	unlock(la);
	unlock(lb)
}
