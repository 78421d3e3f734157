/* An option starting with false guards a d_step (spin keeps it there; in
   plain code it drops it): this d_step is never enabled. */
byte l;

active proctype stuck() {
  d_step {
    if
    :: false
    fi;
    l = 9
  }
}

active proctype counter() {
  do
  :: l < 2 -> l++
  :: l == 2 -> break
  od
}
