/* A claim over a model without global variables: pan's header with the claim's counters
 * (_a_t, _cnt[2], _vsz) ends at byte 8, so the claim starts there, not at 16.
 * spin -o1 -o2 -o3 -a; gcc -DNOREDUCE; ./pan -a -c0: State-vector 20 byte, depth reached 5,
 * an acceptance cycle. */
active proctype P1() { skip }
never f0 {
accept: do :: true od
}
