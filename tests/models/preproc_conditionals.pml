/* Configuration by preprocessor: nested #if/#elif/#else, defined(),
 * #undef, macros expanding to whole statements and guards, and a
 * macro-generated proctype family using ## pasting. */
#define MODE 2
#define USE_ACK
#undef  USE_ACK
#define GUARD(c)	:: (c) ->
#define WORKER(name, step) \
	active proctype name##_w() { \
		byte k; \
		for (k : 1 .. 2) { total = total + step } \
	}

byte total;

#if MODE == 1
#define STEP 1
#elif MODE == 2
#  if defined(USE_ACK)
#define STEP 100
#  else
#define STEP 2
#  endif
#else
#define STEP 0
#endif

WORKER(alpha, STEP)
WORKER(beta, 3)

active proctype Check()
{
	do
	GUARD(total == 2 * STEP + 6) break
	GUARD(total > 2 * STEP + 6) assert(false)
	od;
	assert(STEP == 2)
}
