/* Messages with fewer values than the channel has fields: spin accepts the model, pan
 * reports "too few parameters in send stmnt" and "missing pars in receive" and completes
 * the step (the missing fields are zero, the missing variables untouched). */
chan q = [2] of { byte, byte };
chan r = [0] of { byte, byte };
byte x, y;

active proctype A()
{
	q!1; x = 1;
	q!1,2; x = 2;
	q?y; x = 3;
	q?x,y; x = 4;
	r!5
}

active proctype B()
{
	r?x; y = 9
}
