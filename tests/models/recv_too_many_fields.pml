/* A receive that names more fields than the channel's messages have. pan reads each
 * argument's field and stops the whole search, even with -c0, when it reads past the last
 * ("too many fields in recv"), which happens once the constants before it match: the first
 * option never does (no message starts with 5), the second does when (2, 1) is at the head. */
chan c = [2] of { byte, bit };
byte x, y, z;

active proctype A()
{
	byte i;
	do
	:: i < 3 -> c ! i, 1; i++
	:: else -> break
	od
}

active proctype B()
{
	do
	:: c ? 5, y, 3
	:: c ? 2, y, z
	:: c ? x, y -> skip
	od
}
