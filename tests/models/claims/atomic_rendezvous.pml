/* Atomic sequences and rendezvous under an ltl claim: an atomic run keeps the turn to its
 * end (the claim moves only after it, or where it blocks), a rendezvous is one move; the
 * safety formula fails as the claim's assertion. */
chan c = [0] of { byte };
chan d = [1] of { byte };
byte got, sent;
active proctype Sender() {
  byte i;
  do
  :: i < 3 -> atomic { i++; sent = i; d?_ ; sent++ }
  :: i < 4 -> c!i; i++
  :: i >= 3 -> break
  od
}
active proctype Filler() {
end:
  do
  :: d!1
  od
}
active proctype Receiver() {
  byte v;
end:
  do
  :: c?v -> atomic { got = v; v = 0 }; got = 0
  od
}
ltl bounded { [] (got + sent <= 6) }
