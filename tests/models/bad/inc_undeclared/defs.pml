/* defines Q */

proctype Q() {
	x = z
}
