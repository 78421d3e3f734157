/* A goto inside one atomic sequence onto a goto inside a later one: spin
   patches each sequence's gotos as it generates its code, so the later goto
   still counts as atomic and the first one folds into it (pan's b -> state of
   L2's goto, atomic); L2's goto leaves the sequence. */
bool b;
byte n;

active proctype p() {
P: n = (n + 1) % 3;
  atomic {
    if
    :: n == 1 -> goto P
    :: b -> goto L2
    fi
  };
  atomic {
    n = 2;
L2: goto P;
    n = 0
  }
}

active proctype q() {
  do
  :: b = !b
  od
}
