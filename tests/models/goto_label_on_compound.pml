/* A goto written before a labelled compound statement that contains an
 * inline with a label of the same name: the goto, the outer label and the
 * inline's label are one name in one scope (the goto came first), and spin
 * takes the label declared last, i.e. the outer one (a label on a compound
 * statement is declared after the labels inside it). */
byte x;

inline inner() { x = 7; L: x = 8 }

active proctype P() {
	if
	:: goto L
	:: skip
	fi;
	x = 1;
L:	atomic { x = 2; inner(); x = 3 };
	assert(x == 3)
}
