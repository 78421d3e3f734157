/* run of an undeclared proctype */
proctype P() { skip }

init {
	run P();
	run Q()
}
