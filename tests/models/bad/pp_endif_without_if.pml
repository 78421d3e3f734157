/* #endif without #if */
byte x;
#endif

init { skip }
