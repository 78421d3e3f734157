//! The book (reachable sets and state graph) of a run that writes a record, kept beside the
//! search on a second thread. The recorder answers the search on its own thread (which
//! states are pruned, replayed or expanded, and the replayed events; a recording run asks
//! nothing); everything it then tells the book is a command without an answer, so it goes
//! through a `pipe` to a worker that applies the commands in order to the book, with its own
//! machine for the same program, and the book ends up exactly as if they had been made
//! inline. The search pays only for queueing: canonical vectors, fingerprints, reachable sets
//! and the state graph are computed on the worker, except the fingerprints a reusing run
//! needs to answer. The book's memory use reaches the search a batch or two late, so a run
//! cut by its memory limit may store a few more states than inline (its verdict is the same:
//! incomplete, no record).

use crate::explore::Blocked;
use crate::explore::Fingerprint;
use crate::explore::Pid;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::explore::budget::Budget;
use crate::explore::event::{End, Event, To};
use crate::explore::machine::{EdgeNo, Machine};
use crate::explore::state::State;
use crate::explore::trail::TrailStep;
use crate::explore::ViolationKind;

use crate::rmc::record::graph::NONE;
use crate::rmc::run::book::{Book, Keep, Moved};
use crate::rmc::run::pipe::{self, Batch, Rx, Tx};

/// One call on the book, in 16 bytes: a command's bytes cross to the worker's core and
/// back with every batch, so the common ones are packed (a step with neither flag nor
/// blocked processes, a group's marker, an end) and the rare ones keep their large parts in
/// the batch's side lists (`Event`, `Passed`). A state's vector lies next in the batch's
/// bytes (`len` bytes), blocked processes next in the batch's list.
enum Cmd {
    Begin(Budget),
    Open {
        id: u32,
        old: u32,
        verbatim: bool,
    },
    Vector {
        canon: u32,
        tags: u32,
    },
    /// The fingerprint's 16 bytes lie next in the batch's bytes.
    Enter {
        id: u32,
    },
    Fresh {
        id: u32,
        len: u32,
    },
    /// The parent vector (`len` bytes next) of extras id `ctx`.
    Parent {
        ctx: u32,
        len: u32,
    },
    EnterMapped {
        id: u32,
        slot: u32,
        ctx: u32,
    },
    Locations {
        len: u32,
    },
    OldSet(u32),
    Foot {
        of: u32,
        touch: bool,
    },
    Rename {
        to: u32,
        id: u32,
    },
    /// The step lies next in the batch's steps.
    Passed {
        len: u32,
    },
    /// A step inside an atomic run where the moved processes' locations are all the book
    /// needs (`Book::moved_suffice`, mirrored by `BookPipe`): no vector.
    PassedMoved {
        a: Moved,
        b: Option<Moved>,
        nr: u16,
    },
    Touch(u32),
    /// `Event::Step` without a flag: `to` is `To::State(at)` (`TO_STATE`), `To::Atomic`
    /// or `To::Repeat`; `rv` with `RV`.
    Step {
        pid: Pid,
        rv_pid: Pid,
        bits: u8,
        edge: EdgeNo,
        rv_edge: EdgeNo,
        at: u32,
    },
    /// `Event::Group`; `pid` with `has_pid`.
    Group {
        pid: Pid,
        has_pid: bool,
        rv: bool,
        foot: u32,
        at: u32,
    },
    /// `Event::End` of `Leave` (`END_LEAVE`), `Stored(at)` or `Group`.
    End {
        kind: u8,
        at: u32,
    },
    /// Any other event: it lies next in the batch's events, its blocked processes next in
    /// the batch's list.
    Event {
        blocked: u32,
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
    Broken,
}

/// `Cmd::Step`'s bits: the step is a rendezvous (`rv_pid`, `rv_edge`), and where it went.
const RV: u8 = 1;
const TO_STATE: u8 = 0;
const TO_ATOMIC: u8 = 2;
const TO_REPEAT: u8 = 4;
/// `Cmd::End`'s kinds.
const END_LEAVE: u8 = 0;
const END_STORED: u8 = 1;
const END_GROUP: u8 = 2;

// Every command in 16 bytes (`Cmd`).
const _: () = assert!(std::mem::size_of::<Cmd>() <= 16);

/// The event a packed command stands for.
fn unpacked(c: &Cmd) -> Option<Event> {
    Some(match *c {
        Cmd::Step {
            pid,
            rv_pid,
            bits,
            edge,
            rv_edge,
            at,
        } => Event::Step {
            step: TrailStep {
                pid,
                edge,
                rv: (bits & RV != 0).then_some((rv_pid, rv_edge)),
            },
            flag: None,
            to: match bits & !RV {
                TO_ATOMIC => To::Atomic,
                TO_REPEAT => To::Repeat,
                _ => To::State(at),
            },
        },
        Cmd::Group {
            pid,
            has_pid,
            rv,
            foot,
            at,
        } => Event::Group {
            pid: has_pid.then_some(pid),
            foot,
            rv,
            at,
        },
        Cmd::End { kind, at } => Event::End(match kind {
            END_LEAVE => End::Leave,
            END_STORED => End::Stored(at),
            _ => End::Group,
        }),
        _ => return None,
    })
}

/// `ev` packed, where it has a packed form and no blocked processes.
fn packed(ev: &Event) -> Option<Cmd> {
    Some(match *ev {
        Event::Step {
            step,
            flag: None,
            to,
        } => {
            let (to_bits, at) = match to {
                To::State(k) => (TO_STATE, k),
                To::Atomic => (TO_ATOMIC, 0),
                To::Repeat => (TO_REPEAT, 0),
            };
            let (rv_pid, rv_edge) = step.rv.unwrap_or((0, 0));
            Cmd::Step {
                pid: step.pid,
                rv_pid,
                bits: to_bits | if step.rv.is_some() { RV } else { 0 },
                edge: step.edge,
                rv_edge,
                at,
            }
        }
        Event::Group { pid, foot, rv, at } => Cmd::Group {
            pid: pid.unwrap_or(0),
            has_pid: pid.is_some(),
            rv,
            foot,
            at,
        },
        Event::End(End::Leave) => Cmd::End {
            kind: END_LEAVE,
            at: 0,
        },
        Event::End(End::Stored(k)) => Cmd::End {
            kind: END_STORED,
            at: k,
        },
        Event::End(End::Group) => Cmd::End {
            kind: END_GROUP,
            at: 0,
        },
        _ => return None,
    })
}

fn apply(batch: &Batch<Cmd>, b: &mut Book, m: &Machine, st: &mut State) {
    let (mut at, mut bl, mut ev_at, mut step_at) = (0usize, 0usize, 0usize, 0usize);
    // The next `n` bytes of the batch.
    let mut next = |n: u32| {
        let from = at;
        at += n as usize;
        &batch.bytes[from..at]
    };
    for c in &batch.cmds {
        if b.oom {
            // The search stops once it sees this; what it sent until then is dropped (the
            // commands would name states the book could not add).
            return;
        }
        match c {
            Cmd::Begin(budget) => b.begin(budget),
            &Cmd::Open { id, old, verbatim } => {
                b.graph.open(id, (old != NONE).then_some(old), verbatim)
            }
            &Cmd::Vector { canon, tags } => {
                let c = next(canon);
                b.graph.vector(c, next(tags));
            }
            &Cmd::Enter { id } => {
                let mut fp = [0u8; 16];
                fp.copy_from_slice(next(16));
                b.enter(id, Fingerprint(u128::from_le_bytes(fp)))
            }
            &Cmd::Fresh { id, len } => {
                st.load(&m.layout, next(len));
                b.fresh(m, id, st);
            }
            &Cmd::Parent { ctx, len } => b.parent(ctx, next(len)),
            &Cmd::EnterMapped { id, slot, ctx } => b.enter_mapped(m, id, slot, ctx),
            &Cmd::Locations { len } => {
                st.load(&m.layout, next(len));
                b.locations(m, st);
            }
            &Cmd::OldSet(old) => b.old_set(old),
            &Cmd::Foot { of, touch } => b.foot(of, touch),
            &Cmd::Rename { to, id } => b.rename(to, id),
            &Cmd::Passed { len } => {
                st.load(&m.layout, next(len));
                let step = batch.steps[step_at];
                step_at += 1;
                b.passed(m, st, step);
            }
            &Cmd::PassedMoved { a, b: partner, nr } => {
                debug_assert!(
                    b.moved_suffice(usize::from(nr)),
                    "the book's locations followed"
                );
                b.passed_moved(m, a, partner)
            }
            &Cmd::Touch(l) => b.graph.touch(l),
            Cmd::Step { .. } | Cmd::Group { .. } | Cmd::End { .. } => {
                if let Some(ev) = unpacked(c) {
                    b.graph.event(m, &ev, &[]);
                }
            }
            &Cmd::Event { blocked } => {
                let n = blocked as usize;
                b.graph
                    .event(m, &batch.events[ev_at], &batch.blocked[bl..bl + n]);
                ev_at += 1;
                bl += n;
            }
            &Cmd::Matched { id, done } => b.matched(id, done),
            &Cmd::Violation {
                kind,
                edge,
                blocked,
            } => {
                let n = blocked as usize;
                b.violation(m, kind, edge, &batch.blocked[bl..bl + n]);
                bl += n;
            }
            &Cmd::Finished { id, root } => b.finished(id, root),
            &Cmd::Member(id) => b.member(id),
            &Cmd::Broken => b.graph.broken = true,
        }
    }
}

/// The search thread's end: the book's calls, queued.
pub struct BookPipe {
    tx: Tx<Cmd>,
    /// The book ran out of memory (as the worker last saw it).
    oom: Arc<AtomicBool>,
    /// What `Book::moved_suffice` reads, followed command by command as the book will
    /// apply them (its accumulator's generation, the one its locations were added in, and
    /// how many processes they were), so that a step inside an atomic run sends the moved
    /// processes' locations instead of the whole vector where that is all the book reads
    /// (an atomic run of many steps sent and rescanned each vector).
    gen: u64,
    seen_gen: u64,
    seen_nr: usize,
}

impl BookPipe {
    fn saw_locations(&mut self, st: &State) {
        self.seen_gen = self.gen;
        self.seen_nr = st.nr_pr();
    }
}

impl Keep for BookPipe {
    fn begin(&mut self, budget: &Budget) {
        // The batches in flight, with the vectors they carry.
        if budget.take(pipe::in_flight::<Cmd>() * 4).is_err() {
            self.oom.store(true, Ordering::Relaxed);
        }
        self.tx.push(Cmd::Begin(budget.clone()));
    }

    #[inline]
    fn open(&mut self, id: u32, old: Option<u32>, verbatim: bool) {
        self.tx.push(Cmd::Open {
            id,
            old: old.unwrap_or(NONE),
            verbatim,
        });
    }

    #[inline]
    fn vector(&mut self, canon: &[u8], tags: &[u8]) {
        self.tx.batch.bytes.extend_from_slice(canon);
        self.tx.batch.bytes.extend_from_slice(tags);
        self.tx.push(Cmd::Vector {
            canon: canon.len() as u32,
            tags: tags.len() as u32,
        });
    }

    #[inline]
    fn enter(&mut self, id: u32, fp: Fingerprint) {
        self.gen += 1;
        self.tx.batch.bytes.extend_from_slice(&fp.0.to_le_bytes());
        self.tx.push(Cmd::Enter { id });
    }

    fn parent(&mut self, ctx: u32, canon: &[u8]) {
        self.tx.batch.bytes.extend_from_slice(canon);
        self.tx.push(Cmd::Parent {
            ctx,
            len: canon.len() as u32,
        });
    }

    #[inline]
    fn enter_mapped(&mut self, _m: &Machine, id: u32, slot: u32, ctx: u32) {
        self.gen += 1;
        self.tx.push(Cmd::EnterMapped { id, slot, ctx });
    }

    #[inline]
    fn fresh(&mut self, _m: &Machine, id: u32, st: &State) {
        self.gen += 1;
        self.saw_locations(st);
        self.tx.batch.bytes.extend_from_slice(&st.v);
        self.tx.push(Cmd::Fresh {
            id,
            len: st.v.len() as u32,
        });
    }

    #[inline]
    fn locations(&mut self, _m: &Machine, st: &State) {
        self.saw_locations(st);
        self.tx.batch.bytes.extend_from_slice(&st.v);
        self.tx.push(Cmd::Locations {
            len: st.v.len() as u32,
        });
    }

    #[inline]
    fn old_set(&mut self, old: u32) {
        self.tx.push(Cmd::OldSet(old));
    }

    #[inline]
    fn foot(&mut self, of: u32, touch: bool) {
        self.tx.push(Cmd::Foot { of, touch });
    }

    fn rename(&mut self, to: u32, id: u32) {
        self.tx.push(Cmd::Rename { to, id });
    }

    #[inline]
    fn passed(&mut self, _m: &Machine, st: &State, step: Option<TrailStep>) {
        if let Some(s) = step.filter(|_| self.seen_gen == self.gen && self.seen_nr == st.nr_pr()) {
            let at = |pid: Pid| Moved::of(st, pid);
            self.tx.push(Cmd::PassedMoved {
                a: at(s.pid),
                b: s.rv.map(|(q, _)| at(q)),
                nr: st.nr_pr() as u16,
            });
            return;
        }
        self.saw_locations(st);
        self.tx.batch.bytes.extend_from_slice(&st.v);
        self.tx.batch.steps.push(step);
        self.tx.push(Cmd::Passed {
            len: st.v.len() as u32,
        });
    }

    #[inline]
    fn touch(&mut self, loc: u32) {
        self.tx.push(Cmd::Touch(loc));
    }

    #[inline]
    fn event(&mut self, _m: &Machine, ev: &Event, blocked: &[Blocked]) {
        if let Some(c) = packed(ev).filter(|_| blocked.is_empty()) {
            self.tx.push(c);
            return;
        }
        self.tx.batch.blocked.extend_from_slice(blocked);
        self.tx.batch.events.push(*ev);
        self.tx.push(Cmd::Event {
            blocked: blocked.len() as u32,
        });
    }

    #[inline]
    fn matched(&mut self, id: u32, done: bool) {
        self.tx.push(Cmd::Matched { id, done });
    }

    fn violation(
        &mut self,
        _m: &Machine,
        kind: ViolationKind,
        edge: Option<EdgeNo>,
        blocked: &[Blocked],
    ) {
        self.tx.batch.blocked.extend_from_slice(blocked);
        self.tx.push(Cmd::Violation {
            kind,
            edge,
            blocked: blocked.len() as u32,
        });
    }

    #[inline]
    fn finished(&mut self, id: u32, root: bool) {
        self.gen += 1;
        self.tx.push(Cmd::Finished { id, root });
    }

    #[inline]
    fn member(&mut self, id: u32) {
        self.tx.push(Cmd::Member(id));
    }

    fn broken(&mut self) {
        self.tx.push(Cmd::Broken);
    }

    /// As the worker last saw it.
    fn out_of_memory(&self) -> bool {
        self.oom.load(Ordering::Relaxed)
    }
}

/// Runs `search` with `book` kept on a worker thread fed through a pipe (`search` gives the
/// pipe to whatever issues the calls, and hands it back), with its own machine for `m`'s
/// program; returns what `search` returned and the book, `None` if the worker
/// failed or the pipe was not handed back.
pub fn beside<T>(
    m: &Machine,
    mut book: Book,
    search: impl FnOnce(BookPipe) -> (T, Option<BookPipe>),
) -> (T, Option<Book>) {
    let oom = Arc::new(AtomicBool::new(false));
    let seen = oom.clone();
    let prog = m.prog;
    let work = move |rx: Rx<Cmd>| {
        let m = Machine::new(prog).ok()?;
        let mut st = State::default();
        rx.each(|batch| {
            apply(batch, &mut book, &m, &mut st);
            seen.store(book.oom, Ordering::Relaxed);
        });
        Some(book)
    };
    pipe::beside("git-rmc-book", work, |tx| {
        let (out, pipe) = search(BookPipe {
            tx,
            oom,
            gen: 0,
            seen_gen: u64::MAX,
            seen_nr: 0,
        });
        (out, pipe.map(|p| p.tx))
    })
}
