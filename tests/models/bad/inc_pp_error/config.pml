/* config */
#define N 3
#if N > 2
#error N too large
#endif
