/* Jump chains through atomic sequences: a goto from outside onto a goto inside an atomic is
 * folded through it to where it leads (spin's huntele asks the status of the chain's origin),
 * while a chain that starts inside an atomic stops at the jump that would leave it. */
byte x, y;
active proctype P() {
  goto L2;
  atomic { skip; L2: goto L1 };
L1: do :: x < 3 -> x++ :: x == 3 -> break od;
  atomic { x == 3 -> y = 1; goto L3; L4: y = 5 };
L3: goto L5;
L5: y == 1 -> y = 2;
  atomic { y == 2 -> goto L6; L6: goto L7 };
L7: y = 4
}
active proctype Q() { atomic { x > 0 -> goto A }; A: goto B; B: x == 3 -> skip }
