//! What the expansion of a stored state did, step by step (DESIGN.md 5.4): the vocabulary in
//! which the search tells its rider what an executed expansion produced (so that a record can
//! keep it) and in which a rider hands a recorded expansion back (so that the search replays
//! it without executing anything). The events of one stored state are its whole expansion in
//! the search's order, the states passed inside atomic sequences from it included: a step
//! into such a state is followed by that state's own events, up to its `End`.

use super::exec::Flag;
use super::machine::EdgeNo;
use super::outcome::ViolationKind;
use super::trail::TrailStep;
use crate::explore::Pid;

/// One thing that happened while a state was expanded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A rendezvous offer that no receiver took: pan still reached the level below.
    Offer,
    /// A step, what it flagged (a failed assertion, say), and where it led.
    Step {
        step: TrailStep,
        flag: Option<Flag>,
        to: To,
    },
    /// A step that could not complete (`executed`: it counts as executed, as a fault does),
    /// or an error reported where a statement simply did not move (`executed` false).
    Fault {
        step: TrailStep,
        kind: ViolationKind,
        executed: bool,
        /// An error the step reported before the fault (pan reports both).
        flag: Option<Flag>,
    },
    /// The moves of one process in the first pass over a stored state's processes begin
    /// (`pid`), or that pass is over (`pid` None: a second pass with `timeout` true may
    /// follow, then the end). What one process does there depends on its own location and
    /// those its moves pass (`foot`: the footprint id of a recorded group, NONE when it is
    /// to be computed), unless it meets a rendezvous (`rv`, which other processes answer)
    /// or reads other processes' code: so a replay may take one process's moves from the
    /// record while it executes another's. `at`: the stable location the process starts
    /// from (its group's footprint has it; NONE when not known).
    Group {
        pid: Option<Pid>,
        foot: u32,
        rv: bool,
        at: u32,
    },
    /// The enumeration of the state's successors is over.
    End(End),
}

impl Event {
    /// The stored state the event names (a step's target, or the state an atomic run
    /// blocked in), if any.
    pub fn target(&self) -> Option<u32> {
        match *self {
            Event::Step {
                to: To::State(k), ..
            }
            | Event::End(End::Stored(k)) => Some(k),
            _ => None,
        }
    }

    /// The same event with the state it names renamed by `f` (None: `f` has no name for
    /// it).
    pub fn renamed(self, f: impl FnOnce(u32) -> Option<u32>) -> Option<Event> {
        Some(match self {
            Event::Step {
                step,
                flag,
                to: To::State(k),
            } => Event::Step {
                step,
                flag,
                to: To::State(f(k)?),
            },
            Event::End(End::Stored(k)) => Event::End(End::Stored(f(k)?)),
            e => e,
        })
    }
}

impl Event {
    /// The same event with its edges renumbered by `f` (both halves of a rendezvous).
    pub fn map_edges(self, mut f: impl FnMut(EdgeNo) -> EdgeNo) -> Event {
        let mut on = |s: TrailStep| TrailStep {
            pid: s.pid,
            edge: f(s.edge),
            rv: s.rv.map(|(q, e)| (q, f(e))),
        };
        match self {
            Event::Step { step, flag, to } => Event::Step {
                step: on(step),
                flag,
                to,
            },
            Event::Fault {
                step,
                kind,
                executed,
                flag,
            } => Event::Fault {
                step: on(step),
                kind,
                executed,
                flag,
            },
            e => e,
        }
    }
}

/// Where a step led.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum To {
    /// A state that is stored: its search id when the search reports, its record key when a
    /// rider replays.
    State(u32),
    /// A state inside an atomic sequence (not stored): its own events follow.
    Atomic,
    /// A state inside an atomic sequence that repeats on the path: a non-terminating atomic
    /// sequence, not explored further.
    Repeat,
}

/// How an enumeration ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// Nothing more to do.
    Leave,
    /// A stored state without successors that is an invalid end state (the blocked
    /// processes travel beside the event).
    Invalid,
    /// A state inside an atomic sequence without successors: it is stored, as this state
    /// (search id or record key, as in `To::State`), and every process may move from it.
    Stored(u32),
    /// The group of moves a replay took from the record is over: the state's expansion
    /// goes on executing (never recorded).
    Group,
}
