/* Every Promela operator on small integers: + - * / % , & | ^ ~,
 * << >>, && || !, == != < <= > >=, unary minus, and conditional
 * expressions (c -> a : b), each checked by an assertion. */
int a = 17, b = 5, c;
bool t = true, f = false;

active proctype Ops()
{
	c = a + b;	assert(c == 22);
	c = a - b;	assert(c == 12);
	c = a * b;	assert(c == 85);
	c = a / b;	assert(c == 3);
	c = a % b;	assert(c == 2);
	c = -a;		assert(c == -17);
	c = - -a;	assert(c == 17);
	c = a & b;	assert(c == 1);
	c = a | b;	assert(c == 21);
	c = a ^ b;	assert(c == 20);
	c = ~a;		assert(c == -18);
	c = a << 2;	assert(c == 68);
	c = a >> 2;	assert(c == 4);
	c = -a / b;	assert(c == -3);
	c = -a % b;	assert(c == -2);
	assert(t && !f);
	assert(t || f);
	assert(!(f || f));
	assert(a != b && a > b && a >= b && b < a && b <= a && !(a == b));
	c = (a > b -> a : b);	assert(c == 17);
	c = (a < b -> a : (b > 2 -> 100 : 200));	assert(c == 100);
	c = 2 + 3 * 4 - 8 / 2;	assert(c == 10);
	c = (1 << 3 | 1) & ~1;	assert(c == 8);
	c = a > b == t;		assert(c == 1);
	c = 1 - 2 - 3;		assert(c == -4);
	c = a & 1 + 2;		assert(c == 1);
	c = t + t;		assert(c == 2)
}
