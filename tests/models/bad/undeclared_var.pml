/* undeclared variable */
byte x;

init {
	x = y + 1
}
