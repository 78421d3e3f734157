/* inline called with the wrong number of arguments */
inline set(v) {
	v = 1
}

init {
	byte a, b;
	set(a, b)
}
