/* unknown field */
typedef Rec { byte f; int h };
Rec r;

init {
	r.g = 1
}
