/* A break inside an atomic sequence is a goto to the loop's exit, outside
   the sequence: spin's patch_atomic makes it leave the sequence, and a jump
   that leaves is followed through the exit's own jump (pan folds the od's
   .(goto) away). */
byte g;

active proctype p() {
  do
  :: atomic { g = (g + 1) % 4; g > 2 -> break; skip }
  :: g < 2 -> atomic { g++; break; g = 9 }
  od;
  assert(g != 9)
}

active proctype q() {
  do
  :: g = 0
  :: break
  od
}
