/* A formula without temporal operators: spin's claim is do :: atomic { !p -> assert(p) } od,
 * which under -o3 stays inside its atomic across the loop's back edge. pan -a runs to its
 * depth limit (-m10000: 1 stored, 2 visited, 5001 matched, depth 9999); git rmc reports the
 * claim's atomic run repeating a state, as it does a process's, and stops there. */
byte g;
active proctype P() { g == 1 }
ltl f0 { g == 2 }
