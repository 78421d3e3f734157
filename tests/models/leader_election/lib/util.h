/* ring arithmetic; ids are a fixed permutation so they are distinct */
#define NEXT(i)		(((i) + 1) % N)
#define ID_OF(i)	((i) == 0 -> 5 : ((i) == 1 -> 9 : 2))
#define MAXID		9
