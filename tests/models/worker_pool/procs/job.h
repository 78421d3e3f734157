/* job encoding helpers, included relative to procs/worker.pml */
#define JOB(n)		work, n
#define STOP_JOB	stop, 0
#define DOUBLE(x)	((x) << 1)
