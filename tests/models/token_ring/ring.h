#define NNODES	3
#define ROUNDS	2
#define TOKEN	1

chan link[NNODES] = [1] of { bit };
byte incs;
byte visits[NNODES];
