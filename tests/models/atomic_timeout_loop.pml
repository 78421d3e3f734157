/* A loop inside an atomic sequence that blocks at `timeout` on each round: pan stores the
 * state where the process blocks and meets it again the next round, so the run is no
 * non-terminating atomic sequence (a state repeats only across a block). A second process
 * makes the timeout wait for it. */
byte g, h;
active proctype P() { atomic { do :: g = (g + 1) % 2 -> timeout od } }
active proctype Q() { do :: h < 2 -> h++ :: h == 2 -> break od }
