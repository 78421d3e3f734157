/* unterminated string */
init {
	printf("hello world\n);
	skip
}
