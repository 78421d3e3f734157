/* No accept label: pan ignores -a ("no accept labels are defined, so option -a has no
 * effect"), and its safety search finds the invalid end state. */
active proctype p() { false }
