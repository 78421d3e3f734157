/*
 * Elevator controller with destination dispatch.
 *
 * Each passenger types the destination at the hall panel of the floor
 * where the trip starts, waits for the cabin, boards and leaves the cabin
 * at the destination.  The controller runs a collective (SCAN) policy:
 * it keeps its direction while there are calls ahead of the cabin.
 * The cabin carries at most CAPACITY passengers; a full cabin passes
 * the halls by and only stops to let passengers off.  Without work the
 * cabin goes back to PARK_FLOOR and waits there with the door closed.
 * A passenger who is tired of waiting may take the stairs instead.
 */
#include "config.h"
#include "messages.pml"
#include "cabin.pml"

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

/* SCAN: keep the direction while there is work ahead, else turn round */
inline choose_direction(f, above, below)
{
    scan_calls(f, above, below);
    if
    :: going_up && !above -> going_up = false
    :: !going_up && !below -> going_up = true
    :: else
    fi;
    above = false;
    below = false
}

/* passengers board on the door_open sensor, so there is no need to
 * wait for the door operator here */
inline open_door()
{
    door_cmd!OPEN
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
        pick_floor(dst, FLOORS - 2);    /* any floor but src: */
        if
        :: dst >= src -> dst++          /* skip over src */
        :: else
        fi;
        waiting[src]++;
        trips++
    };
    /* then either ride the cabin or give up */
    if
    :: /* board */
       atomic {
           cabin_floor == src && door_open && has_room ->
           waiting[src]--;
           to[dst]++;
           load++;
           assert(load <= CAPACITY)
       };
       /* alight */
       atomic {
           cabin_floor == dst && door_open ->
           assert(!moving);
           to[dst]--;
           load--;
           trips--
       }
    :: /* tired of waiting: take the stairs; the trip counts as done */
       atomic {
           !(cabin_floor == src && door_open) ->
           waiting[src]--;
           trips--
       }
    fi
}

/*
 * The door operator drives the door motor on the controller's orders.
 * It reports back once the door is closed, so that the controller never
 * starts the motor with the door open.  When something interrupts the
 * light curtain while the door is closing, the door opens again and the
 * operator makes another attempt.
 */
proctype door()
{
end_closed:
    do
    :: door_cmd?OPEN ->
       door_open = true
    :: door_cmd?CLOSE ->
       do
       :: if
          :: door_open = false;
             break
          :: /* light curtain interrupted: the door stays open, try again */
             door_open = true
          fi
       od;
       door_ack!CLOSED
    od
}

/*
 * Maintenance: with the cabin parked and the door shut, the technician
 * inspects every floor and logs it.  Started by the key switch
 * in the machine room (its channel is declared; the switch itself is
 * not wired in yet).
 */
proctype maintenance()
{
    byte f = 0;

    atomic { trips == 0 && !door_open && !moving };
    do
    :: f < FLOORS -> service_log[f] = cabin_floor; f++
    :: else -> break
    od
}

/*
 * The controller: at each floor it either serves the floor, travels one
 * floor towards the next call, or (when there is no work at all) heads
 * for the parking floor.
 */
proctype controller()
{
    byte f;                     /* scratch for choose_direction() */
    bool above, below;

end_idle:
    do
    :: /* serve this floor */
       call_at(cabin_floor) ->
       assert(!moving);
       open_door();
       /* keep the door open until everybody has alighted and either
        * everybody has boarded or the cabin is full */
       !call_at(cabin_floor);
       close_door()
    :: /* nothing to do here: travel towards the next call */
       d_step {
           !call_at(cabin_floor) && trips > 0 ->
           choose_direction(f, above, below)
       };
       move_one_floor()
    :: /* no work at all: go and park */
       d_step {
           trips == 0 && cabin_floor != PARK_FLOOR ->
           going_up = (cabin_floor < PARK_FLOOR)
       };
       move_one_floor()
    od
}

/* start the door operator, the controller and NPASS passengers */
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
