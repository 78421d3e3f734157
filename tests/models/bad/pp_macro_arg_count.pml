/* macro called with the wrong number of arguments */
#define ADD(a, b) ((a) + (b))
byte x;

init {
	x = ADD(1)
}
