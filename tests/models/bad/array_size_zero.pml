/* zero array size */
init {
	byte a[0];
	skip
}
