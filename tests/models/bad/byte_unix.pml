/* unix is a predefined cpp macro */
byte unix;

init { skip }
