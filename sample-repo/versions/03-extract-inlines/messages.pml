/*
 * messages.pml -- commands and acknowledgements between the controller
 * and the door operator.
 */
mtype = { OPEN, CLOSE, DONE };

chan door_cmd = [0] of { mtype };       /* controller -> door */
chan door_ack = [0] of { mtype };       /* door -> controller */
