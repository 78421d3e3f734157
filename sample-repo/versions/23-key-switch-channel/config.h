/*
 * config.h -- dimensions of the elevator model.
 */
#define FLOORS     3    /* floors 0 .. FLOORS-1, 0 is the lobby */
#define NPASS      3    /* passengers; each one makes a single trip */
#define CAPACITY   2    /* passengers the cabin can carry */
#define PARK_FLOOR 1    /* where the cabin waits when there is no work */

/* there is room in the cabin for one more passenger */
#define has_room        (load < CAPACITY)
