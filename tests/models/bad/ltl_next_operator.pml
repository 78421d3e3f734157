/* spin 6.5.2 refuses the next operator where it stands for a formula in an ltl formula
 * (its translator is built without NXT): tl_spin: expected predicate, saw X. */
byte s;
active proctype P() { s = 1 }
ltl c { [] (s == 1 -> X (s == 1)) }
