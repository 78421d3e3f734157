/* A goto that ends one atomic sequence and names a statement inside another
   bridges the two (spin's patch_atomic): control stays with the process;
   the goto it lands on leaves its sequence (its label is outside). */
byte n;

active proctype q0() {
  goto P;
  atomic {
    n = 1;
E:  goto P;
    n = 2
  };
P: atomic {
    n = 0;
    goto E
  }
}

active proctype r() {
  do
  :: n < 3 -> n++
  :: n == 3 -> n = 0
  od
}
