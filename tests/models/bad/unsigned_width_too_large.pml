/* invalid unsigned width */
unsigned x : 40;

init { skip }
