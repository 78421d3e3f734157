/* error in included file */
byte x, y;

#include "body.pml"

init { run P() }
