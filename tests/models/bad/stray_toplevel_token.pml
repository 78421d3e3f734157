/* stray token at top level */
byte x;

42;

init { skip }
