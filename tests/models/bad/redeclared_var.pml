/* redeclaration */
init {
	byte x;
	int y;
	byte x;
	skip
}
