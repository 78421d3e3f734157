/* A trace over one element of an array of channels: events on the
 * other element are not its. */
chan c[2] = [1] of { byte };
active proctype P() { c[0]!1; c[1]!1; c[0]?_; c[1]?_ }
trace { c[1]!1; c[1]?1 }
