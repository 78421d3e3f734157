/* error in included file */
byte x;
#include "defs.pml"

init {
	run Q()
}
