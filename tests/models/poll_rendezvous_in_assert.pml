/* A poll of a rendezvous channel inside an assertion: pan reports the poll
   (an error, and the poll is false) and then the failed assertion, two
   errors in one step; both are violations. */
chan c = [0] of { byte };
byte n;

active proctype p() {
  do
  :: n < 2 -> n++; assert(c?[0])
  :: n == 2 -> break
  od
}
