/* Processes created by init, accepting while they run, and ending: a cycle through accept
 * only while the counter wraps; pan -a without a claim. */
byte k;
proctype W(byte id) { do :: k < 2 -> k++ :: k == 2 -> accept: k = 0; break od }
init { run W(1); run W(2) }
