/* `select` inside an inline body: spin replays the body's text past its lexer's
 * look-ahead, so the select takes the grammar's loop form (`i = a; do :: break :: i < b ->
 * i++ od`) there, while the same select written in a proctype is expanded by the lexer into
 * one choice among assignments. */
byte i, j, hits;

inline pick(v) {
	select(v : 0 .. 2)
}

active proctype P()
{
	pick(i);
	select(j : 0 .. 2);
	if
	:: i == j -> hits++
	:: else
	fi;
	assert(hits <= 1)
}
