/* missing nested include */
byte x;
#include "a.pml"

init { skip }
