/* macro expands to two statements without separator */
#define TWO(a, b) a = 1 b = 2
byte x, y;

init {
	TWO(x, y)
}
