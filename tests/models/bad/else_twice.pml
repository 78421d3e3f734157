/* else twice */
byte x;

init {
	if
	:: x > 1 -> skip
	:: else -> x = 1
	:: else -> x = 2
	fi
}
