/* Declaration modifiers: hidden and show globals, a local global
 * (only used by one process), and channels with exclusive receive
 * (xr) and exclusive send (xs) assertions. */
hidden byte scratch;
show byte visible = 1;
local byte onlyMine;
chan link = [2] of { byte };

active proctype Prod()
{
	xs link;
	byte i;
	for (i : 1 .. 3) {
		scratch = i;
		link ! scratch
	}
}

active proctype Cons()
{
	xr link;
	byte v;
	do
	:: link ? v ->
		onlyMine = onlyMine + v;
		visible = v
	:: onlyMine == 6 -> break
	od;
	assert(visible == 3)
}
