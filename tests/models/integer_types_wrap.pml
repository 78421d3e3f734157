/* Width and sign of basic types: bit, bool, byte, short, int, and
 * unsigned bit-fields (unsigned x : n) wrap or truncate on assignment.
 * printf uses %d %u %x %o %c and %e (mtype name). */
mtype = { lo, hi };
bit b = 1;
bool ok = true;
byte u8 = 250;
short s16 = 32767;
int i32 = -2147483647;
unsigned u3 : 3 = 6;
unsigned u5 : 5;
mtype level = hi;

active proctype Check()
{
	byte t;
	short sh;
	unsigned w : 4 = 15;
	b = b + 1;		/* bit wraps to 0 */
	assert(b == 0);
	u8 = u8 + 10;		/* byte wraps mod 256 */
	assert(u8 == 4);
	u3 = u3 + 3;		/* 3-bit field wraps mod 8 */
	assert(u3 == 1);
	w++;
	assert(w == 0);
	u5 = 37;
	assert(u5 == 5);
	s16++;			/* short overflows to negative */
	assert(s16 == -32768);
	i32--;
	assert(i32 < 0);
	t = 300;
	sh = t;
	assert(sh == 44);
	ok = (u8 > 3);
	printf("b=%d u8=%u hex=%x oct=%o ch=%c lvl=%e\n", b, u8, u8, u8, 65, level);
	assert(ok)
}
