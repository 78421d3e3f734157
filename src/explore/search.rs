//! The search: an iterative depth-first exploration of every reachable state with pan's
//! counting (states stored and matched, atomic steps, depth), Tarjan's SCC bookkeeping inside
//! the DFS, and every distinct violation reported once with the path that reached it.
//!
//! States inside an atomic sequence are not stored: they are frames on the path without a
//! store id, and the Tarjan updates they see go to the nearest stored frame below them. A
//! rendezvous is one successor (its middle state never exists here), two levels deep.
//!
//! What rides along (recording reachable sets, pruning, progress) plugs in through `Rider`;
//! there is one search loop.

use std::time::Instant;

use super::budget::{Budget, OutOfMemory};
use super::chunked::{ByteStack, ChunkedVec, Pos};
use super::eval::Fault;
use super::exec::Flag;
use super::machine::{EdgeNo, Machine};
use super::outcome::{Limit, Options, Outcome, Stats, Violation, ViolationKind};
use super::property::{self, Key, Register};
use super::state::State;
use super::store::Store;
use super::succ::{Cursor, FaultAt, Next};
use super::trail::TrailStep;

/// What the search does with a state stored for the first time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Visit {
    /// Explore its successors.
    Expand,
    /// Do not explore it: its sub-state-space is known (a pruned state).
    Skip,
}

/// Work that rides along the one search: told about every stored state, every step through
/// an atomic sequence, every transition to a state already stored, every violation (each
/// occurrence, not only the first), and every completed strongly connected component.
/// Every method has a default that does nothing, so a plain check pays nothing.
pub trait Rider {
    /// The search starts; the rider takes the memory of its own structures from `budget`.
    fn begin(&mut self, _budget: &Budget) {}
    /// A state stored for the first time, with its store id (its Tarjan index).
    fn stored(&mut self, _m: &Machine, _id: u32, _st: &State) -> Visit {
        Visit::Expand
    }
    /// A state the search passes inside an atomic sequence (not stored): it belongs to the
    /// stored state the sequence started from.
    fn passed(&mut self, _m: &Machine, _st: &State) {}
    /// A transition into the stored state `id`; `done` when its component is complete.
    fn matched(&mut self, _id: u32, _done: bool) {}
    /// A violation occurred at the state being expanded (every occurrence).
    fn violation(
        &mut self,
        _m: &Machine,
        _kind: ViolationKind,
        _edge: Option<EdgeNo>,
        _blocked: &[(usize, usize, u32)],
    ) {
    }
    /// The stored state `id` has no successors left. `root`: it is the root of its
    /// component, whose members (root included) follow through `member`.
    fn finished(&mut self, _id: u32, _root: bool) {}
    /// A member of the component just completed.
    fn member(&mut self, _id: u32) {}
    /// The violations in the known sub-state-space of the state just skipped, to be
    /// reported again (their trails continue from that state).
    fn reissue(&mut self, _m: &Machine, _out: &mut Vec<Key>) {}
    /// The search ran out of memory in the rider's own structures.
    fn out_of_memory(&self) -> bool {
        false
    }
}

/// The rider of a plain check.
pub struct NoRider;

impl Rider for NoRider {}

const NONE: u32 = u32::MAX;

#[derive(Clone, Copy)]
struct Frame {
    /// Store id; NONE inside an atomic sequence.
    id: u32,
    /// In the path: the hidden globals of a stored frame (its stored part is in the
    /// store), the whole vector of an unstored one.
    at: Pos,
    len: u32,
    depth: u64,
    /// Where the enumeration of this state's successors stands.
    cursor: Cursor,
    lowlink: u32,
    /// Index of the nearest stored frame at or below this one.
    anchor: u32,
    step: Option<TrailStep>,
}

struct Search<'m, 'p, R: Rider> {
    m: &'m Machine<'p>,
    opts: &'m Options,
    rider: &'m mut R,
    budget: Budget,
    store: Store,
    frames: ChunkedVec<Frame>,
    path: ByteStack,
    /// The state of the frame `loaded` (its index), decoded.
    cur: State,
    loaded: usize,
    /// The successor being built, and scratch.
    next: State,
    tmp: State,
    tarjan: ChunkedVec<u32>,
    assigned: ChunkedVec<u64>,
    stats: Stats,
    found: Register,
    limit: Option<Limit>,
    stopped_by: Option<ViolationKind>,
    executed: Vec<bool>,
    blocked: Vec<(usize, usize, u32)>,
    keys: Vec<Key>,
    hidden: usize,
}

/// Explores every reachable state of the machine. `progress` is called now and then with the
/// figures so far.
pub fn explore(m: &Machine, opts: &Options, progress: &mut dyn FnMut(&Stats)) -> Outcome {
    search(m, opts, &mut NoRider, progress)
}

/// The one search, with a rider.
pub fn search<R: Rider>(
    m: &Machine,
    opts: &Options,
    rider: &mut R,
    progress: &mut dyn FnMut(&Stats),
) -> Outcome {
    let started = Instant::now();
    let budget = Budget::new(opts.memory_limit);
    let mut found = Register::new(opts.max_trails);
    let empty = |limit, found: Register| Outcome {
        stats: Stats::default(),
        violations: found.list,
        limit,
        stopped_by: None,
        executed: vec![false; m.edges.len()],
        initial: Vec::new(),
    };
    let store = match Store::new(budget.clone()) {
        Ok(s) => s,
        Err(OutOfMemory) => return empty(Some(Limit::Memory), found),
    };
    let initial = match m.initial() {
        Ok(st) => st,
        Err(f) => {
            let kind = fault_kind(&f);
            found.add(Violation {
                kind,
                edge: None,
                pid: Some(0),
                message: fault_message(&f),
                blocked: Vec::new(),
                trail: Some(Vec::new()),
                via: None,
            });
            let mut out = empty(None, found);
            out.stopped_by = kind.is_fatal().then_some(kind);
            return out;
        }
    };
    let mut s = Search {
        m,
        opts,
        rider,
        frames: ChunkedVec::new(budget.clone(), 1 << 20),
        path: ByteStack::new(budget.clone(), 1 << 20),
        tarjan: ChunkedVec::new(budget.clone(), 1 << 18),
        assigned: ChunkedVec::new(budget.clone(), 1 << 16),
        budget,
        store,
        cur: State::default(),
        loaded: usize::MAX,
        next: State::default(),
        tmp: State::default(),
        stats: Stats::default(),
        found,
        limit: None,
        stopped_by: None,
        executed: vec![false; m.edges.len()],
        blocked: Vec::new(),
        keys: Vec::new(),
        hidden: m.layout.hidden_size as usize,
    };
    s.rider.begin(&s.budget);
    let initial_bytes = initial.v.clone();
    s.next = initial;
    s.visit(0, None, None);
    let mut tick = 0u32;
    while !s.frames.is_empty() {
        if s.limit.is_some() || s.stopped_by.is_some() {
            break;
        }
        let fi = s.frames.len() - 1;
        s.load(fi);
        let f = s.frames.get_ref(fi);
        let (mut c, depth) = (f.cursor, f.depth);
        let r = s.m.next(&s.cur, &mut c, &mut s.next, &mut s.tmp);
        if std::mem::take(&mut c.failed_offer) {
            // A rendezvous offer nobody took still reached the level below.
            s.reach(depth + 1);
        }
        s.frames.get_mut(fi).cursor = c;
        match r {
            Next::Succ(it) => {
                s.mark(it.edge, it.rv);
                let step = TrailStep {
                    pid: it.pid,
                    edge: it.edge,
                    rv: it.rv,
                };
                if let Some(flag) = it.flag {
                    s.report_flag(flag, step);
                }
                let d = depth + if it.rv.is_some() { 2 } else { 1 };
                s.visit(d, it.atomic.then(|| it.mover()), Some(step));
                tick += 1;
                if tick & 0xffff == 0 {
                    s.stats.elapsed = started.elapsed();
                    s.stats.peak_memory_bytes = s.budget.peak();
                    progress(&s.stats);
                }
            }
            Next::Fault(f) => {
                s.mark(f.edge, f.rv);
                s.report_fault(&f);
            }
            // An error pan reports while the statement simply does not move.
            Next::Report(f) => s.report_fault(&f),
            Next::Done => s.exhausted(fi),
        }
    }
    s.finish(initial_bytes, started)
}

impl<R: Rider> Search<'_, '_, R> {
    fn finish(mut self, initial: Vec<u8>, started: Instant) -> Outcome {
        self.stats.transitions = self.stats.states_stored + self.stats.states_matched;
        self.stats.elapsed = started.elapsed();
        self.stats.peak_memory_bytes = self.budget.peak();
        self.stats.store_bytes = self.store.memory();
        Outcome {
            stats: self.stats,
            violations: self.found.list,
            limit: self.limit,
            stopped_by: self.stopped_by,
            executed: self.executed,
            initial,
        }
    }

    fn out_of_memory(&mut self) {
        self.limit = Some(Limit::Memory);
    }

    /// Decodes frame `fi`'s state into `cur` unless it is there already.
    fn load(&mut self, fi: usize) {
        if self.loaded == fi {
            return;
        }
        let f = self.frames.get_ref(fi);
        let own = self.path.get(f.at, f.len as usize);
        self.cur.v.clear();
        self.cur.v.extend_from_slice(own);
        if f.id != NONE {
            self.cur.v.extend_from_slice(self.store.get(f.id));
        }
        self.cur.rescan(&self.m.layout);
        self.loaded = fi;
    }

    /// The steps from the initial state to the frame on top, then `last`.
    fn trail(&self, last: Option<TrailStep>) -> Vec<TrailStep> {
        let mut t = Vec::with_capacity(self.frames.len() + 1);
        t.extend(self.frames.iter().filter_map(|f| f.step));
        t.extend(last);
        t
    }

    /// A trail for a violation of `kind` if that kind still gets trails and the trail fits
    /// the memory budget (else the search stops at its memory limit).
    fn trail_for(
        &mut self,
        kind: ViolationKind,
        last: Option<TrailStep>,
    ) -> Option<Vec<TrailStep>> {
        if !self.found.wants_trail(kind) {
            return None;
        }
        let bytes = (self.frames.len() as u64 + 1) * std::mem::size_of::<TrailStep>() as u64;
        if self.budget.take(bytes).is_err() {
            self.out_of_memory();
            return None;
        }
        Some(self.trail(last))
    }

    /// Visits the state in `self.next`, reached at `depth` by `step`; `atomic` names the
    /// process that keeps exclusive control.
    fn visit(&mut self, depth: u64, atomic: Option<u8>, step: Option<TrailStep>) {
        if let Some(max) = self.opts.max_depth {
            if depth >= max {
                // pan counts a cut at the depth limit as a match.
                self.stats.states_matched += 1;
                self.limit = Some(Limit::Depth);
                return;
            }
        }
        if step.is_some_and(|s| s.rv.is_some()) {
            // The middle of a rendezvous is a state pan explores without storing.
            self.reach(depth - 1);
        }
        let anchor = self.anchor();
        if let Some(p) = atomic {
            self.stats.atomic_steps += 1;
            if self.repeats_in_atomic_run() {
                let edge = step.map(|s| s.edge).unwrap_or(NONE);
                let kind = ViolationKind::NonTerminatingAtomic;
                self.rider.violation(self.m, kind, Some(edge), &[]);
                if !self.found.seen_edge(kind, edge) {
                    let trail = self.trail_for(kind, step);
                    self.add(Violation {
                        kind,
                        edge: Some(edge),
                        pid: Some(p as usize),
                        message: NON_TERMINATING.into(),
                        blocked: Vec::new(),
                        trail,
                        via: None,
                    });
                }
                return;
            }
            self.reach(depth);
            self.rider.passed(self.m, &self.next);
            // Stored only if the process blocks inside the sequence (see `exhausted`).
            self.push(NONE, depth, Some(p), anchor.unwrap_or(NONE), step);
            return;
        }
        // Look the state up before anything else: most successors are already stored.
        let (id, new) = match self.store.insert(&self.next.v[self.hidden..]) {
            Ok(x) => x,
            Err(OutOfMemory) => return self.out_of_memory(),
        };
        if !new {
            self.matched(id, anchor);
            return;
        }
        let pan = self.m.pan_vector(&self.next);
        self.stored(id, depth, self.next.v.len(), pan);
        let visit = self.rider.stored(self.m, id, &self.next);
        let idx = self.frames.len() as u32;
        if !self.push(id, depth, None, idx, step) {
            return;
        }
        if visit == Visit::Skip {
            self.skip();
        }
    }

    /// Counts a successor that is already stored; Tarjan hands its index to `anchor`, the
    /// nearest stored frame.
    fn matched(&mut self, id: u32, anchor: Option<u32>) {
        self.stats.states_matched += 1;
        let done = self.is_assigned(id);
        if !done {
            if let Some(a) = anchor {
                let f = self.frames.get_mut(a as usize);
                f.lowlink = f.lowlink.min(id);
            }
        }
        self.rider.matched(id, done);
    }

    /// Counts a newly stored state (vector of `len` bytes, hidden globals included; `pan`
    /// bytes in pan's layout).
    fn stored(&mut self, id: u32, depth: u64, len: usize, pan: u64) {
        self.stats.states_stored += 1;
        self.reach(depth);
        let vec_len = (len - self.hidden) as u64;
        self.stats.vector_bytes = self.stats.vector_bytes.max(vec_len);
        self.stats.state_vector_bytes = self.stats.state_vector_bytes.max(pan);
        if self.tarjan.push(id).is_err() {
            self.out_of_memory();
        }
        if self
            .opts
            .max_states
            .is_some_and(|m| self.stats.states_stored >= m)
        {
            self.limit = Some(Limit::States);
        }
    }

    /// Pushes a frame for the state in `self.next`, which becomes the loaded state. The
    /// path keeps the whole vector of an unstored frame and only the hidden globals of a
    /// stored one. Returns false when memory ran out (the search then stops).
    fn push(
        &mut self,
        id: u32,
        depth: u64,
        only: Option<u8>,
        anchor: u32,
        step: Option<TrailStep>,
    ) -> bool {
        let own = if id == NONE {
            &self.next.v[..]
        } else {
            &self.next.v[..self.hidden]
        };
        let len = own.len() as u32;
        let Ok(at) = self.path.push(own) else {
            self.out_of_memory();
            return false;
        };
        let cursor = Cursor::new(&self.next, only);
        let frame = Frame {
            id,
            at,
            len,
            depth,
            cursor,
            lowlink: id,
            anchor,
            step,
        };
        if self.frames.push(frame).is_err() {
            self.path.truncate(at);
            self.out_of_memory();
            return false;
        }
        if self.rider.out_of_memory() {
            self.out_of_memory();
        }
        std::mem::swap(&mut self.cur, &mut self.next);
        self.loaded = self.frames.len() - 1;
        true
    }

    /// The frame on top has no successors left.
    fn exhausted(&mut self, fi: usize) {
        let f = self.frames.get(fi);
        if f.cursor.moved == 0 {
            if f.id == NONE {
                // The process blocked inside its atomic sequence: the state is stored and
                // every process may move from it.
                let (id, new) = match self.store.insert(&self.cur.v[self.hidden..]) {
                    Ok(x) => x,
                    Err(OutOfMemory) => return self.out_of_memory(),
                };
                if !new {
                    self.matched(id, (f.anchor != NONE).then_some(f.anchor));
                    self.pop();
                    return;
                }
                let pan = self.m.pan_vector(&self.cur);
                self.stored(id, f.depth, self.cur.v.len(), pan);
                let visit = self.rider.stored(self.m, id, &self.cur);
                // The frame now holds only its hidden globals in the path.
                self.path.truncate(f.at);
                let Ok(at) = self.path.push(&self.cur.v[..self.hidden]) else {
                    return self.out_of_memory();
                };
                let fr = self.frames.get_mut(fi);
                fr.id = id;
                fr.at = at;
                fr.len = self.hidden as u32;
                fr.lowlink = id;
                fr.anchor = fi as u32;
                fr.cursor = Cursor::new(&self.cur, None);
                if visit == Visit::Skip {
                    self.skip();
                }
                return;
            }
            if self.opts.end_states {
                self.check_end_state();
            }
        }
        self.pop();
    }

    /// The state on top was stored but is not explored (its sub-state-space is known):
    /// the violations in that sub-state-space are reported again, each with the path so far
    /// as the start of its trail, and the state is left.
    fn skip(&mut self) {
        self.stats.states_pruned += 1;
        let mut keys = std::mem::take(&mut self.keys);
        keys.clear();
        self.rider.reissue(self.m, &mut keys);
        for k in &keys {
            let (kind, edge, blocked) = match k {
                Key::Edge(kind, edge) => {
                    if self.found.seen_edge(*kind, *edge) {
                        continue;
                    }
                    (*kind, Some(*edge), Vec::new())
                }
                Key::End(tuple) => {
                    let blocked: Vec<(usize, usize, u32)> = tuple
                        .iter()
                        .map(|&(t, l)| (usize::MAX, t as usize, l))
                        .collect();
                    if self.found.seen_end(&blocked) {
                        continue;
                    }
                    (ViolationKind::InvalidEndState, None, blocked)
                }
            };
            let trail = self.trail_for(kind, None);
            self.add(Violation {
                kind,
                edge,
                pid: None,
                message: kind.as_str().replace('-', " "),
                blocked,
                trail,
                via: Some(self.cur.v.clone()),
            });
        }
        self.keys = keys;
        self.pop();
    }

    #[inline]
    fn reach(&mut self, depth: u64) {
        if depth > self.stats.depth_reached {
            self.stats.depth_reached = depth;
        }
    }

    fn anchor(&self) -> Option<u32> {
        self.frames.last().map(|f| f.anchor).filter(|&a| a != NONE)
    }

    /// Inside one atomic run (the unstored frames above the nearest stored one, and that
    /// one), does the state in `self.next` already occur on the path?
    fn repeats_in_atomic_run(&self) -> bool {
        let me = &self.next.v[..];
        for fi in (0..self.frames.len()).rev() {
            let f = self.frames.get(fi);
            let own = self.path.get(f.at, f.len as usize);
            let same = if f.id == NONE {
                own == me
            } else {
                me.len() == own.len() + self.store.get(f.id).len()
                    && &me[..own.len()] == own
                    && &me[own.len()..] == self.store.get(f.id)
            };
            if same {
                return true;
            }
            if f.id != NONE {
                break;
            }
        }
        false
    }

    /// Reports what a completed step flagged (a failed assertion, missing message fields).
    fn report_flag(&mut self, flag: Flag, step: TrailStep) {
        if flag == Flag::Assertion && !self.opts.assertions {
            return;
        }
        let kind = flag_kind(flag);
        self.rider.violation(self.m, kind, Some(step.edge), &[]);
        if self.found.seen_edge(kind, step.edge) {
            return;
        }
        let trail = self.trail_for(kind, Some(step));
        let message = flag_message(self.m, flag, step.edge);
        self.add(Violation {
            kind,
            edge: Some(step.edge),
            pid: Some(step.pid as usize),
            message,
            blocked: Vec::new(),
            trail,
            via: None,
        });
    }

    fn mark(&mut self, edge: EdgeNo, rv: Option<(u8, EdgeNo)>) {
        if let Some(x) = self.executed.get_mut(edge as usize) {
            *x = true;
        }
        if let Some((_, r)) = rv {
            if let Some(x) = self.executed.get_mut(r as usize) {
                *x = true;
            }
        }
    }

    /// A step that could not complete: reported once per (kind, edge); a fatal one ends the
    /// whole search, as in pan.
    fn report_fault(&mut self, f: &FaultAt) {
        let kind = fault_kind(&f.fault);
        if kind == ViolationKind::IndexOutOfRange && !self.opts.assertions {
            return;
        }
        self.rider.violation(self.m, kind, Some(f.edge), &[]);
        if kind.is_fatal() {
            self.stopped_by = Some(kind);
        }
        if self.found.seen_edge(kind, f.edge) {
            return;
        }
        let step = TrailStep {
            pid: f.pid,
            edge: f.edge,
            rv: f.rv,
        };
        let trail = self.trail_for(kind, Some(step));
        self.add(Violation {
            kind,
            edge: Some(f.edge),
            pid: Some(f.pid as usize),
            message: fault_message(&f.fault),
            blocked: Vec::new(),
            trail,
            via: None,
        });
    }

    fn add(&mut self, v: Violation) {
        // Every distinct violation is kept: its bytes count against the memory limit.
        let bytes = std::mem::size_of::<Violation>()
            + v.message.len()
            + v.blocked.len() * std::mem::size_of::<(usize, usize, u32)>()
            + v.via.as_ref().map_or(0, |x| x.len());
        if self.budget.take(bytes as u64).is_err() {
            return self.out_of_memory();
        }
        self.found.add(v);
        if self
            .opts
            .max_errors
            .is_some_and(|m| self.found.len() as u64 >= m)
        {
            self.limit = Some(Limit::Errors);
        }
    }

    /// A stored state without successors: every process must be at a valid end (its end or
    /// an `end` label), and with `-q` every channel empty.
    fn check_end_state(&mut self) {
        let mut blocked = std::mem::take(&mut self.blocked);
        if property::invalid_end(self.m, &self.cur, self.opts, &mut blocked) {
            let kind = ViolationKind::InvalidEndState;
            self.rider.violation(self.m, kind, None, &blocked);
            if !self.found.seen_end(&blocked) {
                let trail = self.trail_for(kind, None);
                self.add(Violation {
                    kind,
                    edge: None,
                    pid: None,
                    message: property::end_message(&blocked),
                    blocked: blocked.clone(),
                    trail,
                    via: None,
                });
            }
        }
        self.blocked = blocked;
    }

    fn is_assigned(&self, id: u32) -> bool {
        let (w, b) = (id as usize / 64, id % 64);
        w < self.assigned.len() && self.assigned.get(w) >> b & 1 == 1
    }

    fn set_assigned(&mut self, id: u32) {
        let (w, b) = (id as usize / 64, id % 64);
        while self.assigned.len() <= w {
            if self.assigned.push(0).is_err() {
                return self.out_of_memory();
            }
        }
        *self.assigned.get_mut(w) |= 1 << b;
    }

    fn pop(&mut self) {
        let Some(f) = self.frames.pop() else {
            return;
        };
        self.path.truncate(f.at);
        if self.loaded >= self.frames.len() {
            self.loaded = usize::MAX;
        }
        if f.id == NONE {
            return;
        }
        let root = f.lowlink == f.id;
        self.rider.finished(f.id, root);
        if root {
            let mut size = 0;
            while let Some(w) = self.tarjan.pop() {
                self.set_assigned(w);
                self.rider.member(w);
                size += 1;
                if w == f.id {
                    break;
                }
            }
            self.stats.sccs += 1;
            self.stats.largest_scc = self.stats.largest_scc.max(size);
        } else if let Some(a) = self.anchor() {
            let p = self.frames.get_mut(a as usize);
            p.lowlink = p.lowlink.min(f.lowlink);
        }
    }
}

/// The kind of violation a failed step is.
pub fn fault_kind(f: &Fault) -> ViolationKind {
    match f {
        Fault::Index { .. } => ViolationKind::IndexOutOfRange,
        Fault::DivZero => ViolationKind::DivisionByZero,
        Fault::TooManyProcs => ViolationKind::TooManyProcesses,
        Fault::TooManyChans => ViolationKind::TooManyChannels,
        Fault::DStepBlocked => ViolationKind::DStepBlocked,
        Fault::NonTerminatingAtomic => ViolationKind::NonTerminatingAtomic,
        Fault::BadChan => ViolationKind::UninitialisedChannel,
        Fault::RecvFields => ViolationKind::MessageFields,
        Fault::SendTooMany => ViolationKind::SendTooManyValues,
        Fault::PollRendezvous => ViolationKind::PollRendezvous,
        Fault::CopyRendezvous => ViolationKind::CopyReceiveRendezvous,
        Fault::RendezvousInDStep => ViolationKind::RendezvousInDStep,
        Fault::Priority(_) => ViolationKind::PriorityOutOfRange,
        Fault::EnabledSelf => ViolationKind::EnabledSelf,
        Fault::DProctypeChoice => ViolationKind::DProctypeNondeterminism,
        Fault::Unsupported(_) => ViolationKind::Unsupported,
    }
}

/// The message of a non-terminating atomic sequence.
pub const NON_TERMINATING: &str =
    "non-terminating atomic sequence: a state repeats inside one atomic run";

/// The message of what a completed step flagged.
pub fn flag_message(m: &Machine, flag: Flag, edge: EdgeNo) -> String {
    let e = m.edge(edge);
    match flag {
        Flag::Assertion => format!(
            "assertion violated {}",
            e.text.strip_prefix("assert").unwrap_or(&e.text)
        ),
        Flag::SendFields => "too few parameters in send: the message has more fields".into(),
        Flag::RecvFields => "missing parameters in receive: the message has more fields".into(),
        Flag::SendTooMany => {
            "too many parameters in send: the channel has fewer fields (the rest are dropped)"
                .into()
        }
        Flag::PollRendezvous => fault_message(&Fault::PollRendezvous),
        Flag::DProctype => fault_message(&Fault::DProctypeChoice),
    }
}

/// The kind of violation a completed step reported.
pub fn flag_kind(f: Flag) -> ViolationKind {
    match f {
        Flag::Assertion => ViolationKind::Assertion,
        Flag::SendFields | Flag::RecvFields => ViolationKind::MessageFields,
        Flag::SendTooMany => ViolationKind::SendTooManyValues,
        Flag::PollRendezvous => ViolationKind::PollRendezvous,
        Flag::DProctype => ViolationKind::DProctypeNondeterminism,
    }
}

pub fn fault_message(f: &Fault) -> String {
    match f {
        Fault::Index { var, index, len } => {
            format!("array index out of range: {var}[{index}] (size {len})")
        }
        Fault::DivZero => "division by zero".into(),
        Fault::TooManyProcs => "too many processes (255 is the most)".into(),
        Fault::TooManyChans => "too many channels (255 is the most)".into(),
        Fault::DStepBlocked => "d_step blocks after its first statement".into(),
        Fault::NonTerminatingAtomic => "non-terminating d_step".into(),
        Fault::BadChan => "use of an uninitialised channel".into(),
        Fault::RecvFields => "wrong number of message fields in receive (constants only)".into(),
        Fault::SendTooMany => "send with more values than the channel has fields".into(),
        Fault::PollRendezvous => {
            "poll of a rendezvous channel: it holds no messages, so the poll is false".into()
        }
        Fault::CopyRendezvous => {
            "copying receive ?<> on a rendezvous channel: it can never execute".into()
        }
        Fault::RendezvousInDStep => "rendezvous inside a d_step after its first statement".into(),
        Fault::Priority(p) => format!("set_priority: priority {p} out of range (1..255)"),
        Fault::EnabledSelf => "enabled() of the running process".into(),
        Fault::DProctypeChoice => {
            "nondeterministic choice in a D_proctype (more than one option executable)".into()
        }
        Fault::Unsupported(what) => format!("not supported: {what}"),
    }
}
