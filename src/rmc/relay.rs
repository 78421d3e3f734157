//! A recording run's rider, on a second thread. In a run without a record to reuse, the
//! search never needs an answer from its rider: every state is expanded, nothing is known by
//! key, nothing is replayed. So the search talks to a `Relay`, which queues each call (with
//! the state it concerns) through a `pipe`, and a worker makes the same calls, in the same
//! order, on the real rider with its own machine for the same program. The rider ends up
//! exactly as if it had ridden along inline, and the search pays only for queueing: the
//! canonical vectors, fingerprints, reachable sets and the state graph are all computed on
//! the worker. The one difference: the worker's memory use reaches the search a batch or
//! two late, so a run cut by its memory limit may store a few more states before it stops
//! than the inline run (its verdict is the same: incomplete, no record).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::explore::budget::Budget;
use crate::explore::event::Event;
use crate::explore::machine::{EdgeNo, Machine};
use crate::explore::search::{Rider, Visit};
use crate::explore::state::State;
use crate::explore::trail::TrailStep;
use crate::explore::ViolationKind;

use super::pipe::{self, Batch, Rx, Tx};

/// One call on the rider. A call that concerns a state has its vector next in the batch's
/// bytes (`len` bytes); blocked processes are next in the batch's list.
enum Call {
    Begin(Budget),
    Stored {
        id: u32,
        len: u32,
    },
    StoredWithout {
        id: u32,
    },
    Event {
        ev: Event,
        blocked: u32,
    },
    Created {
        first: u32,
        len: u32,
    },
    Passed {
        step: Option<TrailStep>,
        len: u32,
    },
    Matched {
        id: u32,
        done: bool,
    },
    Violation {
        kind: ViolationKind,
        edge: Option<EdgeNo>,
        blocked: u32,
    },
    Finished {
        id: u32,
        root: bool,
    },
    Member(u32),
}

/// The search's rider: it queues every call for the worker.
pub struct Relay {
    tx: Tx<Call>,
    /// The rider ran out of memory (as the worker last saw it).
    oom: Arc<AtomicBool>,
}

impl Relay {
    #[inline]
    fn state(&mut self, st: &State) -> u32 {
        self.tx.batch.bytes.extend_from_slice(&st.v);
        st.v.len() as u32
    }
}

impl Rider for Relay {
    fn begin(&mut self, budget: &Budget) {
        // The batches in flight, with the vectors they carry.
        if budget.take(pipe::in_flight::<Call>() * 4).is_err() {
            self.oom.store(true, Ordering::Relaxed);
        }
        self.tx.push(Call::Begin(budget.clone()));
    }

    fn stored(&mut self, _m: &Machine, id: u32, st: Option<&State>, _key: Option<u32>) -> Visit {
        match st {
            Some(st) => {
                let len = self.state(st);
                self.tx.push(Call::Stored { id, len });
            }
            None => self.tx.push(Call::StoredWithout { id }),
        }
        Visit::Expand
    }

    fn groups(&self) -> bool {
        // The recorder it relays to writes the state graph, in groups.
        true
    }

    fn event(&mut self, _m: &Machine, ev: &Event, blocked: &[(usize, usize, u32)]) {
        self.tx.batch.blocked.extend_from_slice(blocked);
        self.tx.push(Call::Event {
            ev: *ev,
            blocked: blocked.len() as u32,
        });
    }

    fn created(&mut self, _m: &Machine, st: &State, first: usize) {
        let len = self.state(st);
        self.tx.push(Call::Created {
            first: first as u32,
            len,
        });
    }

    fn passed(&mut self, _m: &Machine, st: &State, step: Option<TrailStep>) {
        let len = self.state(st);
        self.tx.push(Call::Passed { step, len });
    }

    fn matched(&mut self, id: u32, done: bool) {
        self.tx.push(Call::Matched { id, done });
    }

    fn violation(
        &mut self,
        _m: &Machine,
        kind: ViolationKind,
        edge: Option<EdgeNo>,
        blocked: &[(usize, usize, u32)],
    ) {
        self.tx.batch.blocked.extend_from_slice(blocked);
        self.tx.push(Call::Violation {
            kind,
            edge,
            blocked: blocked.len() as u32,
        });
    }

    fn finished(&mut self, id: u32, root: bool) {
        self.tx.push(Call::Finished { id, root });
    }

    fn member(&mut self, id: u32) {
        self.tx.push(Call::Member(id));
    }

    fn out_of_memory(&self) -> bool {
        self.oom.load(Ordering::Relaxed)
    }
}

/// The worker: the calls of a batch made on the rider. False when the rider answered a
/// `stored` with anything but `Expand` (it is not a recording run's rider: what the search
/// did no longer matches it).
fn apply<R: Rider>(batch: &Batch<Call>, r: &mut R, m: &Machine, st: &mut State) -> bool {
    let (mut at, mut bl) = (0usize, 0usize);
    let mut ok = true;
    let mut load = |st: &mut State, len: u32| {
        let n = len as usize;
        st.load(&m.layout, &batch.bytes[at..at + n]);
        at += n;
    };
    for c in &batch.cmds {
        match c {
            Call::Begin(b) => r.begin(b),
            Call::Stored { id, len } => {
                load(st, *len);
                ok &= matches!(r.stored(m, *id, Some(st), None), Visit::Expand);
            }
            Call::StoredWithout { id } => {
                ok &= matches!(r.stored(m, *id, None, None), Visit::Expand);
            }
            Call::Event { ev, blocked } => {
                let n = *blocked as usize;
                r.event(m, ev, &batch.blocked[bl..bl + n]);
                bl += n;
            }
            Call::Created { first, len } => {
                load(st, *len);
                r.created(m, st, *first as usize);
            }
            Call::Passed { step, len } => {
                load(st, *len);
                r.passed(m, st, *step);
            }
            Call::Matched { id, done } => r.matched(*id, *done),
            Call::Violation {
                kind,
                edge,
                blocked,
            } => {
                let n = *blocked as usize;
                r.violation(m, *kind, *edge, &batch.blocked[bl..bl + n]);
                bl += n;
            }
            Call::Finished { id, root } => r.finished(*id, *root),
            Call::Member(id) => r.member(*id),
        }
    }
    ok
}

/// Runs `search` with a `Relay` for `rider`, which rides along on a worker thread with its
/// own machine for `m`'s program; returns what `search` returned and the rider, `None` if
/// the worker failed (no thread, a panic, or a rider that is not a recording run's).
pub fn beside<R: Rider + Send, T>(
    m: &Machine,
    mut rider: R,
    search: impl FnOnce(&mut Relay) -> T,
) -> (T, Option<R>) {
    let oom = Arc::new(AtomicBool::new(false));
    let seen = oom.clone();
    let prog = m.prog;
    let work = move |rx: Rx<Call>| {
        let m = Machine::new(prog).ok()?;
        let mut st = State::default();
        let mut ok = true;
        rx.each(|batch| {
            if ok {
                ok = apply(batch, &mut rider, &m, &mut st);
                seen.store(rider.out_of_memory(), Ordering::Relaxed);
            }
        });
        ok.then_some(rider)
    };
    pipe::beside("git-rmc-record", work, |tx| {
        let mut relay = Relay { tx, oom };
        let out = search(&mut relay);
        (out, Some(relay.tx))
    })
}
