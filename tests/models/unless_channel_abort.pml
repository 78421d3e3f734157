/* A transfer session that can be aborted by a message on a control
 * channel (receive as the unless escape), with a nested unless that
 * pauses on a poll, and atomic/d_step blocks inside the guarded part. */
mtype = { abort, pause };
chan ctl = [1] of { mtype };
chan data = [2] of { byte };
byte moved, pauses;
bool aborted;

active proctype Session()
{
	byte v;
	{
		do
		:: moved < 3 -> {
			atomic { data ? v; moved++ }
		   } unless {
			ctl ?[pause] -> ctl ? pause; d_step { pauses++ }
		   }
		:: moved == 3 -> break
		od
	} unless {
		ctl ? abort -> aborted = true
	};
	assert(moved <= 3 && pauses <= 1);
	assert(aborted || moved == 3)
}

active proctype Feeder()
{
	byte i = 1;
end:	do				/* may stay blocked after an abort */
	:: data ! i -> i++;
		if
		:: i > 3 -> break
		:: else
		fi
	od
}

active proctype Control()
{
	if
	:: ctl ! pause
	:: ctl ! abort
	:: skip
	fi
}
