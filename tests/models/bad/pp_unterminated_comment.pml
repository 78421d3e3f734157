/* unterminated comment */
byte x;

init { skip }
/* this comment
   never ends
