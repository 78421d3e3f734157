/* worker proctype; pulls in its helpers from the same folder */
#include "job.h"
#include "../defs.h"

proctype Worker(byte me)
{
	byte n;
	do
	:: jobs ? work, n ->
		results ! me, DOUBLE(n)
	:: jobs ? stop, _ -> break
	od
}
