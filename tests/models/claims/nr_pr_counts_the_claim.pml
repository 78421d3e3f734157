/* _nr_pr counts the never claim as pan counts it: with the claim, one process and the
 * claim make 2, and x becomes 1, as the formula asks (with 1, p would block for ever: an acceptance cycle). */
byte x;
active proctype p() { _nr_pr == 2 -> x = 1 }
ltl f { <> (x == 1) }
