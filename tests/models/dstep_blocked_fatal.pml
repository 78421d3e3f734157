/* A d_step that blocks after its first statement: pan reports "block in
 * d_step seq" and ends the whole search, even with -c0. */
byte x;

active proctype A() {
	do
	:: x < 3 -> x++
	:: x == 3 -> break
	od
}

active proctype B() {
	d_step { x >= 2; x = x * 2; x == 4; x = 0 }
}
