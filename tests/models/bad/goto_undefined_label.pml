/* goto undefined label */
init {
	skip;
	goto nowhere
}
