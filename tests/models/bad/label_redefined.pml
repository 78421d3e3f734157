/* label redefinition */
init {
L:	skip;
	skip;
L:	skip
}
