/* wrong number of run arguments */
proctype P(byte a) { skip }

init {
	run P(1, 2)
}
