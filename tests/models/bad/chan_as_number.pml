/* chan used as a number */
chan c = [1] of { byte };
byte x;

init {
	x = c + 1
}
