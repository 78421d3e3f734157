/* A goto in an inline (finish) called from another inline (work) reaches
 * the label of the calling inline's expansion: the label is in a block
 * around the goto. */
inline finish() { x = 2; goto done }
inline work() { if :: x == 0 -> finish() :: else -> skip fi; x = 1; done: x = x + 10 }
byte x; active proctype P() { work(); assert(x == 12) }
