/* Included: lines here are counted from the marker gcc writes on entry. */
active proctype B()
{
	x = 2
}
