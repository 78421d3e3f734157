/* An end label on an option's first statement. pan folds the option's state into the
 * loop's and hands the label's flag to the state after that statement: Waiter, blocked
 * there (on x > 0, after skip), is at a valid end state, as Guard is at its labelled loop. */
byte x;
active proctype Waiter() {
  do
  :: end: skip; (x > 0) -> x--
  od
}
active proctype Guard() {
end_g:
  do
  :: (x > 5) -> x = 0
  od
}
