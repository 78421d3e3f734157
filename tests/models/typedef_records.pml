/* Nested typedef records with array fields, a record array, field
 * initialisers, and a record sent through a channel as a message field.
 * Records are copied field by field (no struct assignment in spin). */
typedef Point {
	short x = 1;
	short y = -1
};

typedef Shape {
	byte kind;
	Point corner[2];
	bit visible = 1
};

Shape shapes[2];
chan pipe = [1] of { Point, byte };

active proctype Builder()
{
	Point p;
	Shape s;
	assert(p.x == 1 && p.y == -1 && s.visible == 1);
	assert(s.corner[1].y == -1);
	s.kind = 3;
	s.corner[0].x = 5;
	s.corner[1].x = -5;
	/* spin has no whole-record assignment: copy field by field */
	shapes[1].kind = s.kind;
	shapes[1].corner[0].x = s.corner[0].x;
	shapes[1].corner[1].x = s.corner[1].x;
	s.kind = 9;
	assert(shapes[1].kind == 3 && shapes[1].corner[0].x == 5);
	p.x = 42;
	pipe ! p, shapes[1].kind
}

active proctype Reader()
{
	Point q;
	byte k;
	pipe ? q, k;
	assert(q.x == 42 && q.y == -1 && k == 3);
	assert(shapes[0].corner[1].x == 1)
}
