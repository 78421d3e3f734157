/* shared constants for the worker pool */
#ifndef DEFS_H
#define DEFS_H

#define NWORKERS	2
#define NJOBS		3
/* sum of doubled job ids 1..NJOBS */
#define EXPECTED_SUM	(NJOBS * (NJOBS + 1))

mtype = { work, stop };
chan jobs = [2] of { mtype, byte };
chan results = [NJOBS] of { byte, byte };

#endif
