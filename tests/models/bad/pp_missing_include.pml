/* missing include file */
#include "does_not_exist.pml"

init { skip }
