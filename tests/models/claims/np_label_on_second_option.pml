/* A progress label on the first statement of one option of two: its flag goes to the state
 * after that statement, which only the first option passes; the second option loops
 * through the head alone, a non-progress cycle. */
byte x;
active proctype P() {
  do
  :: progress: x = 1; x = 0
  :: x = 2; x = 0
  od
}
