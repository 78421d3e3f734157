/* mtype name redeclared as a variable */
mtype = { idle, busy };
byte busy;

init { skip }
