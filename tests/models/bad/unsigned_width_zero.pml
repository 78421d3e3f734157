/* invalid unsigned width */
unsigned x : 0;

init { skip }
