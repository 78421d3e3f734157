/* nested include: main -> lib/outer.pml -> lib/inner.pml */
byte x;

#include "lib/outer.pml"

init { run R() }
