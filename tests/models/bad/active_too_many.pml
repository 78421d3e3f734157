/* too many active instances */
active [300] proctype P() {
	skip
}
