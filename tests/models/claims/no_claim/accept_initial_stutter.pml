/* The initial state is accepting and nothing moves: pan -a says "accept stutter (at depth -1)". */
active proctype p() { accept: false }
