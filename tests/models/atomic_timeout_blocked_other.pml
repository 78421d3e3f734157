/* Two processes loop inside atomic sequences at timeout. Back at the inner
   timeout, a process blocks: its run stops in a state the other process's
   block stored first, and pan meets it again there; no atomic run repeats a
   state without blocking, so nothing is non-terminating. */
active [2] proctype p() {
  atomic {
    timeout;
    do
    :: true -> skip; timeout
    :: else -> break
    od
  }
}
