/* inner include */
proctype R() {
	y = 1;
	x = y + w
}
