/* Probes of a rendezvous channel: never full (pan is full only mid-handshake, which no
 * other process sees), so always nfull; empty, not nempty. */
chan c = [0] of { byte };
byte n;
active proctype S() { do :: n < 3 && nfull(c) -> c!n; n++ :: n == 3 -> break od }
active proctype R() {
  byte v;
  assert(nfull(c) && empty(c));
  do :: c?v :: full(c) -> assert(false) :: timeout -> break od
}
