/* keyword used as a name */
byte if;

init { skip }
