/* #error in included file */
#include "config.pml"

init { skip }
