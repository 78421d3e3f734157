#include "../util.h"

proctype Elector(byte myid; chan in, out)
{
	byte v;
	out ! candidate, myid;
end:	do
	:: in ? candidate, v ->
		if
		:: v > myid -> out ! candidate, v
		:: v < myid -> skip
		:: v == myid ->
			leaders++;
			winner = myid;
			out ! elected, myid
		fi
	:: in ? elected, v ->
		assert(v == MAXID);
		if
		:: v != myid -> out ! elected, v
		:: else -> skip
		fi
	od
}
