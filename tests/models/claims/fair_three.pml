/* Three processes where only unfair cycles break the formula: each of P0, P1, P2 sets x to
 * its own value for ever; []<>(x == 2) fails only on runs that starve P2 (and with -a those
 * are found), while every weakly fair run lets P2 move: with -f it holds. */
byte x;
active [3] proctype P() { do :: x = _pid od }
ltl p { []<> (x == 2) }
