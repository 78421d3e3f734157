/* Multi-file model: a dispatcher hands jobs to a pool of workers over
 * a shared buffered channel and collects results. Definitions come from
 * defs.h; the worker proctype from procs/worker.pml (which includes
 * procs/job.h relative to itself). */
#include "defs.h"
#include "procs/worker.pml"

init {
	byte i, id, r;
	int sum = 0;
	atomic {
		for (i : 1 .. NWORKERS) {
			run Worker(i)
		}
	}
	for (i : 1 .. NJOBS) {
		jobs ! JOB(i)
	}
	for (i : 1 .. NJOBS) {
		results ? id, r;
		sum = sum + r
	}
	assert(sum == EXPECTED_SUM);
	for (i : 1 .. NWORKERS) {
		jobs ! STOP_JOB
	}
}
