/* `X` as an operand of a comparison in an ltl formula: spin's parser folds it into a
 * constant and `spin -a` accepts the model (as a formula of its own, `X` is refused; see
 * bad/ltl_next_operator.pml). The formula is not checked; the safety figures are. */
byte x;

active proctype Flip()
{
	do
	:: x < 3 -> x = 1 - x
	:: x == 1 -> x = 3
	:: x == 3 -> break
	od;
	assert(x == 0)
}

ltl q { [] ((x == 0 && X(x) == 1) -> x == 0) }
