/* The claim's closing brace is reached only by stuttering after the system has ended; its
 * `-end-` then ends pan's claim process too (only once no process of the system is left). */
byte x;
active proctype A() { x = x + 1 }
never {
  x == 0;
  true;
  true
}
