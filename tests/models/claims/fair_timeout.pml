/* Weak fairness in a model with timeout: W waits for a message or times out and resets x;
 * P sends a bounded number of messages. pan tries the claim's turn again with timeout
 * before the default move. */
chan q = [1] of { byte };
byte x;
active proctype P() { byte i; do :: i < 2 -> q!i; i++ :: i >= 2 -> break od }
active proctype W() { byte v; do :: q?v -> x = v + 1 :: timeout -> x = 0 od }
ltl p { []<> (x == 0) }
