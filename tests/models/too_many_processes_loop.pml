/* A loop of runs: pan allows 255 processes (pids 0..254) and stops at the
 * 256th run with "too many processes", ending the whole search. The state
 * vector needs -DVECTORSZ=4096. */
proctype P() { skip }

init {
	do
	:: run P()
	od
}
