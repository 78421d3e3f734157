/* More than 255 channels: each P declares 100 local channels, the third P
 * would need channels 201..300 and pan stops at the 256th with "too many
 * queues", ending the whole search. The state vector needs
 * -DVECTORSZ=4096. */
proctype P() { chan c[100] = [0] of { bit }; skip }

init {
	run P();
	run P();
	run P()
}
