/* A rendezvous and an accept label in the receiver's loop: pan -a without a claim. */
chan c = [0] of { byte };
byte n;
active proctype S() { do :: n < 3 -> c!n; n++ :: n == 3 -> n = 0 od }
active proctype R() { byte v; do :: c?v -> accept: skip od }
