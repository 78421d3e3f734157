/* option without :: */
byte x;

init {
	if
	   x > 0 -> x = 1
	fi
}
