/* An accept label without a never claim: pan -a (and -a -f) looks for acceptance cycles of
 * the system alone; git rmc checks acceptance cycles only of a product with a claim, and
 * says so (verify --fair is refused, verify -a runs the safety check with a warning). */
byte x;
active proctype A() { do :: x != 2 -> accept: x = 1 od }
active proctype B() { do :: x = 2 od }
