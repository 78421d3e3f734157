/* undeclared variable */
active proctype P() {
	byte i;
	i = 3;
	count = i
}
