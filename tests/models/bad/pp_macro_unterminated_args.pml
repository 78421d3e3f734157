/* unterminated macro argument list */
#define ADD(a, b) ((a) + (b))
byte x;

init {
	x = ADD(1, 2
}
