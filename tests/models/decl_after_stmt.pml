/* Declarations that appear after the first statement of a body, with
 * initialisers that read earlier state, in a proctype and in init.
 * spin turns such an initialiser into an assignment at that point; for
 * an array (byte arr[3] = 2) mid-body it only assigns arr[0]. */
byte g = 4;

active proctype Late()
{
	g++;
	byte twice = g * 2;
	assert(twice == 10 || twice == 8 || twice == 12);
	short neg = -twice;
	assert(neg < 0);
	if
	:: g > 4 -> skip
	:: else -> skip
	fi;
	bit flag = 1;
	assert(flag)
}

init {
	g++;
	int big = 100000;
	byte arr[3] = 2;
	assert(big > 65535 && arr[0] == 2)
}
