/* missing closing brace */
proctype A() {
	skip;
	skip

proctype B() {
	skip
}

init { run A(); run B() }
