/* Weak fairness through a rendezvous: S offers on a synchronous channel, R takes the offer
 * and sets x to 1, T keeps setting x to 0. []<>(x == 1) fails on runs where T alone moves,
 * unfair to the pair; pan counts a rendezvous offer as no move of the sender. */
chan c = [0] of { byte };
byte x;
active proctype S() { do :: c!1 od }
active proctype R() { byte v; do :: c?v -> x = 1 od }
active proctype T() { do :: x = 0 od }
ltl p { []<> (x == 1) }
