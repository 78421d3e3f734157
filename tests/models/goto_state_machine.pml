/* A traffic-light controller written as an explicit state machine with
 * labels and goto; options start with goto or break, and the body ends
 * in a label. An observer counts full cycles. */
mtype = { red, green, yellow };
mtype light = red;
byte cycles;

active proctype Light()
{
Red:	light = red;
	if
	:: cycles >= 2 -> goto Stop
	:: else -> goto Green
	fi;
Green:	light = green;
	do
	:: goto Yellow
	:: break
	od;
	goto Yellow;
Yellow:	light = yellow;
	cycles++;
	goto Red;
Stop:
}

active proctype Watch()
{
	do
	:: break
	:: light == yellow -> assert(cycles <= 2)
	:: cycles == 2 -> break
	od;
	assert(light != green || cycles < 2);
}
