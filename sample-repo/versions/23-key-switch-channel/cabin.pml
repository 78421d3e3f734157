/*
 * cabin.pml -- state of the cabin and of the hall panels, shared by the
 * controller, the door operator and the passengers.
 */
byte cabin_floor = 0;           /* floor the cabin is at */
bool going_up = true;           /* direction of the current sweep */
bool door_open = false;         /* written by the door operator only */
bool moving = false;            /* the motor is running */
byte waiting[FLOORS];           /* passengers waiting at each hall */
byte to[FLOORS];                /* passengers in the cabin, by destination */
byte load = 0;                  /* passengers in the cabin */
byte trips = 0;                 /* trips registered and not yet completed */
byte service_log[FLOORS];       /* what the last maintenance round saw, per floor */

/* the cabin has to stop at floor f: somebody gets off or can get on */
#define call_at(f)      (to[f] > 0 || (waiting[f] > 0 && has_room))
