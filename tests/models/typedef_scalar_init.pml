/* A typedef variable or array declared with a scalar initialiser: spin
 * accepts it and ignores the initialiser; every field gets the default of
 * the typedef (a = 3, b = 0, c[] = 5). A typedef declaration after the first
 * statement is a step that does nothing (the fields keep their defaults). */
typedef Rec { byte a = 3; byte b; byte c[2] = 5 };
Rec r[2] = 9;
Rec s = 9;
byte x;

active proctype P() {
	Rec t = 9;
	assert(r[0].a == 3 && r[0].b == 0 && r[1].a == 3 && r[1].b == 0);
	assert(r[0].c[0] == 5 && r[1].c[1] == 5);
	assert(s.a == 3 && s.b == 0 && s.c[1] == 5);
	assert(t.a == 3 && t.b == 0 && t.c[0] == 5);
	x = 1;
	Rec u;
	u.b = 4;
	assert(u.a == 3 && u.b == 4 && u.c[1] == 5)
}
