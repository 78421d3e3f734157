/*
 * messages.pml -- commands and acknowledgements between the controller
 * and the door operator.  The door operator only reports that the door
 * has closed: the controller must not move the cabin before that, while
 * passengers notice an open door by themselves.
 */
mtype = { OPEN, CLOSE, CLOSED };

chan key_switch = [1] of { bool };     /* machine room -> maintenance */
chan door_cmd = [0] of { mtype };       /* controller -> door */
chan door_ack = [2] of { mtype };       /* door -> controller */
