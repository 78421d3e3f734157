/* a.pml */
byte y;
#include "b_missing.pml"
