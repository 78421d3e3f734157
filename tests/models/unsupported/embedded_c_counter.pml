/* UNSUPPORTED (embedded C): a counter kept partly in C state via
 * c_decl, c_state and c_track, updated with c_code and tested with
 * c_expr. git rmc rejects embedded C as not supported. */
c_decl {
	typedef struct Acc { int total; } Acc;
	int scratch;
}
c_state "int shadow" "Global"
c_track "&scratch" "sizeof(int)"

byte n;

active proctype Adder()
{
	do
	:: n < 3 ->
		c_code { now.shadow = now.shadow + 2; scratch = now.shadow; };
		n++
	:: else -> break
	od;
	c_expr { now.shadow == 6 } -> skip;
	assert(c_expr { scratch == 6 })
}
