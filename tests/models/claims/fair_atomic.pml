/* Weak fairness with atomic sequences: A's atomic run leaves y at 1 with x back at 0, B
 * takes y only inside its own atomic run and sets x to 2, or sets x to 3. []<>(x == 2)
 * fails on fair runs too (B may always choose x = 3): the cycle is reported with -f. */
byte x, y;
active proctype A() { do :: atomic { x = 1; y = 1; x = 0 } od }
active proctype B() { do :: atomic { y == 1 -> y = 0; x = 2 } :: x = 3 od }
ltl p { []<> (x == 2) }
