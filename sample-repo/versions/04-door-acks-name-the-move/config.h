/*
 * config.h -- dimensions of the elevator model.
 */
#define FLOORS  3       /* floors 0 .. FLOORS-1, 0 is the lobby */
#define NPASS   3       /* passengers; each one makes a single trip */
