/* Multi-file model: a token circulates around a ring of nodes; only the
 * token holder may enter its critical section. ring.h holds constants
 * and channels, nodes/node.pml the node proctype and nodes/helpers.pml
 * inlines it includes (relative to nodes/). */
#include "ring.h"
#include "nodes/node.pml"

init {
	byte i;
	atomic {
		for (i : 0 .. NNODES - 1) {
			run Node(i, link[i], link[(i + 1) % NNODES])
		}
		link[0] ! TOKEN
	}
}

never {	/* at most one node in its critical section */
	do
	:: incs > 1 -> break
	:: else
	od
}
