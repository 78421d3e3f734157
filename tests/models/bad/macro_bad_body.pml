/* ill-formed macro body */
#define CLEAR(v) v = ;
byte x;

init {
	CLEAR(x)
	skip
}
