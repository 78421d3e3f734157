/* assignment to an mtype constant */
mtype = { red, green };

init {
	red = 1
}
