/* invalid directive */
byte x;
#foo bar

init { skip }
