/* A state vector over 1024 bytes: with pan's default VECTORSZ (1024) pan
 * stops at once ("VECTORSZ too small ... N>1116"); the figures are taken
 * with -DVECTORSZ=2048. */
byte big[1100];
byte turn;

active proctype A() {
	do
	:: turn < 4 -> big[turn * 300] = turn + 1; turn++
	:: turn >= 4 -> break
	od
}

active proctype B() {
	big[1099] = 7;
	big[0] == 1 -> big[1] = big[1099]
}
