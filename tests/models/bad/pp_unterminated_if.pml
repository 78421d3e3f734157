/* unterminated #if */
byte x;
#if 1
init { skip }
