/* Named mtype sets (mtype:fruit, mtype:color) alongside the default
 * mtype, typed variables, channels carrying named mtypes, printm and
 * %e in printf; equality tests between values of the same set. */
mtype = { idle, busy };
mtype:fruit = { apple, pear, plum };
mtype:color = { red, green };
mtype:fruit = { cherry };		/* extends the fruit set */

chan basket = [3] of { mtype:fruit, mtype:color };
mtype state = idle;

active proctype Picker()
{
	mtype:fruit f = pear;
	mtype:color c;
	basket ! apple, red;
	basket ! f, green;
	basket ! cherry, red;
	state = busy;
	printm(state);
	printf(" picked %e\n", f)
}

active proctype Eater()
{
	mtype:fruit f;
	mtype:color c;
	byte n;
	do
	:: basket ? f, c ->
		n++;
		if
		:: f == apple -> assert(c == red)
		:: f == pear  -> assert(c == green)
		:: f == cherry -> assert(n == 3)
		:: else -> assert(false)
		fi
	:: n == 3 -> break
	od;
	assert(state == busy || len(basket) == 0)
}
