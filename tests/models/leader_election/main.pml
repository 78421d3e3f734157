/* Multi-file model: Chang-Roberts style leader election on a
 * unidirectional ring with distinct ids. config.h sets sizes, lib/util.h
 * has macros, lib/procs/elector.pml (two folders deep) includes
 * ../util.h, and lib/props.pml adds an ltl property. */
#include "config.h"
#include "lib/procs/elector.pml"
#include "lib/props.pml"

init {
	byte i;
	atomic {
		for (i : 0 .. N - 1) {
			run Elector(ID_OF(i), ring[i], ring[NEXT(i)])
		}
	}
}
