/* od without do */
byte x;

init {
	x = 1;
	od
}
