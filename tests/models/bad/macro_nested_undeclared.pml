/* nested macro expansion */
#define INNER (missing + 1)
#define OUTER(v) v = INNER
byte x;

init {
	skip;
	OUTER(x)
}
