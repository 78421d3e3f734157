/* included body */
proctype P() {
	x = 1;
	y = 2 x = 3
}
