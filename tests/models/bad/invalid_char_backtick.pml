/* invalid character */
byte x;

init {
	x = `1;
	skip
}
