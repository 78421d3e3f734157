/* Two labels on a goto: spin puts the outermost on a skip before the jump;
   the inner one stays on the jump, whose state pan folds away, and its
   progress flag with it. Both loops through L miss every progress state. */
byte x;

active proctype p() {
  x = 1;
end: progress: goto L;
L: x = (x + 1) % 3;
  if
  :: x == 0 -> goto progress
  :: else -> goto end
  fi
}
