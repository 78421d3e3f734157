/* negative array size */
#define N 4
byte ok[N];
init {
	byte a[-1];
	skip
}
