/* spin checks the named mtype of a value assigned to a variable or an array element,
 * but not to a typedef field: a field of one subtype may hold a value of another
 * (as in a public Needham-Schroeder model, where an intruder agent is stored in a
 * message content field). */
mtype:agent = { alice, bob, intruder };
mtype:cnt = { none, nonce_a, nonce_b };
typedef msg { mtype:cnt c1, c2 };
msg m;
mtype:cnt seen;
active proctype P() {
	do
	:: m.c1 = intruder
	:: m.c1 = nonce_a
	:: m.c2 = bob; seen = nonce_b
	:: m.c1 == intruder && m.c2 == bob -> break
	od;
	assert(m.c1 != intruder)
}
