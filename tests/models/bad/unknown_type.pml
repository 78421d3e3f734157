/* unknown type name */
byte x;
flurb y;

init { skip }
