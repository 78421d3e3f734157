/* An accept label in a proctype under -l: pan built with -DNP seeds its nested search from
 * the non-progress claim's accepting state only, whatever the system's labels say. */
byte x;
active proctype P() {
  do
  :: x < 3 -> x++
  :: x == 3 -> accept: x = 0
  od
}
