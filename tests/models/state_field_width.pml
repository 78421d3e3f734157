/* The width of pan's process state field is spin's blog() of the largest proctype's
 * state count: 5 bits for Count's 16 states (a power of two), so that _pid, _t and _p
 * fill 16 bits exactly and the locals follow in the same word (State-vector 20). */
byte x;

proctype Count() {
	byte y = 3;
	byte z = 1;
	do
	:: atomic { x > y -> x = 0; z = 3; z = 3; break }
	:: x < y -> x = x + 1
	:: timeout -> z = 2; break
	od
}

init { run Count() }
