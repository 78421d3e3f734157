/* recursive inline */
inline f(v) {
	v++;
	f(v)
}

init {
	byte a;
	f(a)
}
