/* pan's trace reads a send's message from the queue's last slot and a
 * receive's from its first: after c!!1 the last slot holds 3, and c??3
 * takes the second message while the trace reads the first (1). Both
 * match the trace as pan checks it. */
chan c = [3] of { byte };
active proctype P() { c!3; c!!1; c??3 }
trace { c!3; c!3; c?1 }
