/* `unless` as a loop's options. pan folds each option's first state into the loop's, with
 * the escapes that state has: x == 1 and y == 1 leave the loop's head too, before either
 * option's first statement has run. */
byte x, y;
active proctype P() {
  do
  :: { x < 2 -> x++ } unless { x == 1 -> x = 5 }
  :: { y < 2 -> y++ } unless { y == 1 -> y = 7 }
  :: x >= 5 && y >= 7 -> break
  od
}
