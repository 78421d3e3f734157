/* outer include */
byte y;
#include "inner.pml"
