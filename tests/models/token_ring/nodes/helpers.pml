/* critical section helpers for ring nodes */
inline enter_cs(who) {
	incs++;
	visits[who]++;
	assert(incs == 1)
}

inline leave_cs() {
	incs--
}
