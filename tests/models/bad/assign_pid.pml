/* assignment to _pid */
init {
	byte x;
	_pid = 1
}
