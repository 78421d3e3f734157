/* Preprocessor use: object-like and function-like #define macros with
 * parameters, # stringizing inside printf, ## token pasting to build
 * variable names, and #if / #ifdef / #ifndef / #else / #endif. */
#define SLOTS		3
#define MAX(a, b)	((a) > (b) -> (a) : (b))
#define SQUARE(x)	((x) * (x))
#define SHOW(v)		printf(#v); printf(" = %d\n", v)
#define COUNTER(n)	byte cnt_##n
#define BUMP(n)		cnt_##n++
#define DEBUG 1

COUNTER(a);
COUNTER(b);
byte slot[SLOTS];

#if SLOTS > 2
#define BIG_TABLE
#endif

active proctype Macro()
{
	byte m;
	m = MAX(4, SQUARE(2) + 1);
	assert(m == 5);
	BUMP(a); BUMP(a); BUMP(b);
	assert(cnt_a == 2 && cnt_b == 1);
#ifdef BIG_TABLE
	slot[SLOTS - 1] = SQUARE(SLOTS);
#else
	slot[0] = 1;
	assert(false);
#endif
#if DEBUG
	SHOW(cnt_a);
	SHOW(slot[2]);
#endif
#ifndef NOCHECK
	assert(slot[2] == 9)
#else
	skip
#endif
}
