/* enabled(_pid) evaluated by the process itself: pan reports
 * "used: enabled(pid=thisproc)" and ends the whole search. enabled() of
 * another process is fine. spin -a warns "using enabled() outside never
 * claim". */
byte x;

active proctype Q() { x < 2 -> x++ }

active proctype P() {
	enabled(0) || x > 0;
	if
	:: x == 1 && enabled(_pid) -> x = 5
	:: x == 2 -> x = 6
	fi
}
