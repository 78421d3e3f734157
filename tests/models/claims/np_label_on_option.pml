/* A progress label on an option's first statement: pan folds the option's state into the
 * loop's and hands its progress flag to the state after that statement (y = 0 here), which
 * every iteration passes: no non-progress cycle. */
byte y;
active proctype P() {
  do
  :: progress: skip; y = 0
  od
}
