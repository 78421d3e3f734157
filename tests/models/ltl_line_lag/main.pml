/* spin sets ltl formulas aside to parse them last, copying their text without counting
 * its line breaks: every later line is numbered too low in pan, until gcc -E writes a
 * line marker (entering or leaving an included file, or 8 or more blank lines to skip).
 * Lines in inline bodies are numbered as at the inline's definition. */
byte x, y;

ltl lags_two {
	[] (y <= 2)
}

inline step(v) {
	v = v + 1
}

active proctype A()
{
	step(x);
	x = x + 1
}

#include "part.pml"

active proctype C()
{
	y = 1
}

ltl
lags_three
{
	[] (x <= 4)
}

active proctype D()
{
	byte n;
	step(n)
}

/*
 * A comment of nine lines: gcc skips them with a line marker,
 * and spin's count is right again after it.
 *
 *
 *
 *
 *
 */
active proctype E()
{
	y = 2
}
