/* #else after #else */
#if 0
byte x;
#else
byte y;
#else
byte z;
#endif

init { skip }
