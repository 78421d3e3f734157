/* missing -> after guard */
byte x;

init {
	if
	:: x > 0 x = 1
	:: else -> skip
	fi
}
