/* break outside loop */
init {
	skip;
	break
}
