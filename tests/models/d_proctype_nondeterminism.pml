/* A D_proctype with a nondeterministic choice: pan reports
 * "non-determinism in D_proctype" when it executes a second transition of
 * that process from the same state, and goes on. */
byte x;

active D_proctype P() {
	x = 1;
	if
	:: x == 1 -> x = 2
	:: x > 0 -> x = 3
	fi;
	x = 4
}

active proctype Q() { x == 4 }
