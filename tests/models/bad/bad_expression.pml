/* x = ; */
byte x;

init {
	x = ;
	skip
}
