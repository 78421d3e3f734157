/* An accept label without a never claim: pan -a (and -a -f) looks for acceptance cycles of
 * the system alone, and so does git rmc verify -a (verify --fair is refused: weak fairness
 * without a claim is not checked yet). */
byte x;
active proctype A() { do :: x != 2 -> accept: x = 1 od }
active proctype B() { do :: x = 2 od }
