/* Each process runs a copy of itself: pan stops at the 256th process with
 * "too many processes", ending the whole search. The state vector needs
 * -DVECTORSZ=4096. */
byte n;

proctype P() { atomic { n++; run P() } }

init { run P() }
