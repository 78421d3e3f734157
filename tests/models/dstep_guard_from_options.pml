/* pan enables a d_step by a guard read from its first statement: an if's
   options that are conditions, sends or receives (an option starting with an
   assignment adds nothing, a nested if adds its options, a do adds nothing,
   a block adds its first if's), a plain first condition, or nothing (always).
   Once enabled, the body takes the first option that can run. */
bool b;
byte n, m;
chan q = [2] of { byte };

active proctype toggler() {
  do
  :: n < 3 -> d_step { if :: b = !b; n++ :: b -> n = n + 2 fi }
  :: n >= 3 -> break
  od
}

active proctype setter() {
  b = true;
  b = false;
  q!1;
  b = true;
  q!2
}

active proctype reader() {
  byte v;
end:
  do
  :: d_step { if :: m = m + 1 :: q?v -> m = m + v fi }
  :: d_step { { if :: if :: m > 4 fi :: q?[2] fi }; m = 0 }
  od
}
