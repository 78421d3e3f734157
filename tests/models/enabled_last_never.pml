/* A never claim that watches _last, np_ and enabled(pid) while two
 * workers take turns; the claim only matches an impossible state, so
 * the safety run passes. Also uses progress labels and _last in code. */
byte turn;
byte steps;

active [2] proctype W()
{
end:	do
	:: turn == _pid && steps < 4 ->
progress:	steps++;
		turn = 1 - turn
	od
}

never {
	do
	:: (steps > 4) || (_last > 1) -> break
	:: (np_ && steps == 4 && enabled(0) && enabled(1)) -> break
	:: else
	od
}
