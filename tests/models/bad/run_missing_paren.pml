/* missing ) in run */
proctype P(byte a) { skip }

init {
	run P(1;
	skip
}
