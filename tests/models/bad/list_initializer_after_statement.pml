/* An array list initializer in a declaration after a statement: spin initialises such a
 * declaration by one assignment and rejects the list. */
byte x;
active proctype A() {
	x = 1;
	byte a[2] = {1, 2};
	assert(a[1] == 2)
}
