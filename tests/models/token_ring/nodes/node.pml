#include "helpers.pml"

proctype Node(byte id; chan in, out)
{
	bit t;
end:	do
	:: in ? t ->
		if
		:: visits[id] < ROUNDS ->
			enter_cs(id);
			leave_cs()
		:: else -> skip
		fi;
		out ! t
	od
}
