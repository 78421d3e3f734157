/* proctype without body */
proctype P(byte a)

init {
	skip
}
