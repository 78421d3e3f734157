/* A poll past the message's last field: variables there are not read (no error), a
 * constant is compared, and reading its field is the same fatal error as a receive's, once
 * the constants before it match (here when (1, 0) is at the head). */
chan c = [2] of { byte, bit };
byte x, y, z;

active proctype A()
{
	c ! 3, 1;
	c ! 1, 0
}

active proctype B()
{
	c ?[x, y, z] -> x = 1;
	c ? _, _;
	c ?[1, 0, 0] -> x = 2
}
