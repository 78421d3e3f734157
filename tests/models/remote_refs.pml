/* Remote references: an observer inspects another process's local
 * variable with P[pid]:var and its control location with P[pid]@label,
 * as well as Name:var for a unique active proctype. */
byte gdone;

active proctype Counter()
{
	byte cnt = 0;
	do
	:: cnt < 3 -> cnt++
	:: cnt == 3 -> break
	od;
fin:	gdone = 1
}

active [2] proctype Twin()
{
	byte mine = _pid * 10;
here:	(gdone == 1);
	mine++
}

active proctype Observer()
{
	assert(Counter[0]:cnt <= 3);
	(Counter[0]@fin || gdone == 1);
	assert(Counter[0]:cnt == 3);
	assert(Counter:cnt == 3);
	assert(Twin[1]:mine == 10 || Twin[1]:mine == 11);
	assert(Twin[2]:mine >= 20);
	(Twin[1]@here || gdone == 1)
}
