/* field access on a non-record */
byte x;

init {
	x.f = 1
}
