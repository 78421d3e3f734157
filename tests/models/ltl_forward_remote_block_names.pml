/* ltl formulas resolved after the whole model is read: they name a proctype declared further
   down, and locals declared in blocks (inline bodies, nested and repeated calls, an option's
   block, an atomic) by the names spin gives them: the block's scope prefix and the name. */
inline g(b) { byte w = b; w++ }
inline f(a) { int loc = a; loc++; g(loc); g(3) }

ltl p { [] (P[0]@done -> (P[0]:_1_1_loc == 2 && P[0]:_1_2_4_w == 4)) }
ltl q { <> (Q[1]:_2_4_5_w == 6 && Q[1]:_2_6_z == 3) }

active proctype P() {
	f(1); f(2);
	if
	:: true -> { byte y = 7; y++ }
	fi;
done:	skip
}

active proctype Q() {
	f(5); g(1);
	atomic { short z = 2; z++ }
}

active proctype R() {
	P[0]@done -> assert(P[0]:_1_2_loc == 3 && P[0]:_1_3_y == 8 && Q[1]:_2_5_w == 2)
}
