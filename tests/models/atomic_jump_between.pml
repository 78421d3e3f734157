/* A jump from inside one atomic sequence into the middle of another: the option whose
 * goto is folded onto the other sequence's label keeps atomic control (pan's A flag is the
 * source's), while a goto kept as a step out of the sequence gives it up. */
chan c = [2] of { byte };
byte n, seen;

active proctype Worker()
{
	byte m;
Idle:
	do
	:: atomic { c?m ->
		seen++;
advance:	n = (n + 1) % 3;
		seen = seen + m
	   }
	:: atomic { c?m ->
		if
		:: m == n -> goto advance
		:: else -> goto Idle
		fi
	   }
	:: empty(c) && seen > 4 -> break
	od
}

active proctype Feeder()
{
	byte k;
	do
	:: k < 3 -> c!k; k++
	:: k == 3 -> break
	od
}
