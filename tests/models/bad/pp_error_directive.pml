/* #error */
byte x;
#error this model must not be used

init { skip }
