/* Nondeterministic choice with select (i : a..b) and iteration with
 * for (i : a..b) and for (i in array); a picker chooses an index and a
 * counter checks all array sums. */
byte vals[5] = 3;
byte picked;
int total;

active proctype Picker()
{
	byte i, k;
	select (i : 1 .. 4);
	picked = i;
	assert(picked >= 1 && picked <= 4);
	for (k : 0 .. 4) {
		vals[k] = vals[k] + k
	}
	total = 0;
	for (k in vals) {
		total = total + vals[k]
	}
	assert(total == 5 * 3 + 0 + 1 + 2 + 3 + 4);
	i = 2;
	for (k : i .. 1) {	/* empty range: body never runs (spin rejects constant 2..1) */
		assert(false)
	}
	select (k : 7 .. 7);
	assert(k == 7)
}
