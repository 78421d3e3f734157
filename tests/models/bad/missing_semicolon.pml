/* missing separator between statements */
byte x, y;

init {
	x = 1 y = 2
}
