/* Model m7 from the research on what pan does with claims (its section 9): A and B overwrite x
 * for ever. []<>(x == 2) fails on the run that starves B (-a: a cycle at depth 2) and holds
 * on every weakly fair run (-a -f: 5/8/13). */
byte x;
active proctype A() { do :: x = 1 od }
active proctype B() { do :: x = 2 od }
ltl p { []<> (x == 2) }
