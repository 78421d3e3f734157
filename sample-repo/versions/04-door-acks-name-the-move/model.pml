/*
 * Elevator controller with destination dispatch.
 *
 * Each passenger types the destination at the hall panel of the floor
 * where the trip starts, waits for the cabin, boards and leaves the cabin
 * at the destination.  The controller runs a collective (SCAN) policy:
 * it keeps its direction while there are calls ahead of the cabin.
 */
#include "config.h"
#include "messages.pml"

byte cabin_floor = 0;           /* floor the cabin is at */
bool going_up = true;           /* direction of the current sweep */
bool door_open = false;
bool moving = false;
byte waiting[FLOORS];           /* passengers waiting at each hall */
byte to[FLOORS];                /* passengers in the cabin, by destination */
byte load = 0;                  /* passengers in the cabin */
byte trips = 0;                 /* trips registered and not yet completed */

#define call_at(f)      (waiting[f] > 0 || to[f] > 0)

/* f := any floor in 0 .. top */
inline pick_floor(f, top)
{
    f = 0;
    do
    :: f < top -> f++
    :: break
    od
}

/* sets above/below when there are calls above/below the cabin */
inline scan_calls(f, above, below)
{
    above = false;
    below = false;
    f = 0;
    do
    :: f < FLOORS ->
       if
       :: call_at(f) && f > cabin_floor -> above = true
       :: call_at(f) && f < cabin_floor -> below = true
       :: else
       fi;
       f++
    :: else -> break
    od;
    f = 0
}

inline open_door()
{
    door_cmd!OPEN;
    door_ack?OPENED
}

inline close_door()
{
    door_cmd!CLOSE;
    door_ack?CLOSED
}

inline move_one_floor()
{
    assert(!door_open);
    /* never drive the cabin into either end of the shaft */
    assert(going_up && cabin_floor + 1 < FLOORS || !going_up && cabin_floor > 0);
    moving = true;
    if
    :: going_up && cabin_floor + 1 < FLOORS -> cabin_floor++
    :: !going_up && cabin_floor > 0 -> cabin_floor--
    :: else         /* a limit switch keeps the cabin where it is */
    fi;
    moving = false
}

proctype passenger()
{
    byte src, dst;

    /* walk up to a hall panel and register the trip */
    atomic {
        pick_floor(src, FLOORS - 1);
        pick_floor(dst, FLOORS - 2);
        if
        :: dst >= src -> dst++
        :: else
        fi;
        waiting[src]++;
        trips++
    };
    /* board */
    atomic {
        cabin_floor == src && door_open ->
        waiting[src]--;
        to[dst]++;
        load++
    };
    /* alight */
    atomic {
        cabin_floor == dst && door_open ->
        assert(!moving);
        to[dst]--;
        load--;
        trips--
    }
}

/* the door operator: drives the door motor on the controller's orders */
proctype door()
{
end_closed:
    do
    :: door_cmd?OPEN ->
       door_open = true;
       door_ack!OPENED
    :: door_cmd?CLOSE ->
       door_open = false;
       door_ack!CLOSED
    od
}

proctype controller()
{
    byte f;
    bool above, below;

end_idle:
    do
    :: call_at(cabin_floor) ->
       assert(!moving);
       open_door();
       /* keep the door open until everybody has boarded or alighted */
       !call_at(cabin_floor);
       close_door()
    :: d_step {
           !call_at(cabin_floor) && trips > 0 ->
           scan_calls(f, above, below);
           /* keep the direction while there is work ahead */
           if
           :: going_up && !above -> going_up = false
           :: !going_up && !below -> going_up = true
           :: else
           fi;
           above = false;
           below = false
       };
       move_one_floor()
    od
}

init {
    byte i;

    atomic {
        run door();
        run controller();
        i = 0;
        do
        :: i < NPASS -> run passenger(); i++
        :: else -> break
        od
    }
}
