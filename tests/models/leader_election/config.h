#define N	3
mtype = { candidate, elected };
chan ring[N] = [N] of { mtype, byte };
byte leaders, winner;
