//! The search: an iterative depth-first exploration of every reachable state with pan's
//! counting (states stored and matched, atomic steps, depth), Tarjan's SCC bookkeeping inside
//! the DFS, and every distinct violation reported once with the path that reached it.
//!
//! States inside an atomic sequence are not stored: they are frames on the path without a
//! store id, and the Tarjan updates they see go to the nearest stored frame below them. A
//! rendezvous is one successor (its middle state never exists here), two levels deep.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use serde::Serialize;

use super::eval::Fault;
use super::exec::Flag;
use super::machine::{EdgeNo, Machine};
use super::state::State;
use super::store::Store;
use super::succ::{Cursor, FaultAt, Next};
use super::trail::TrailStep;

/// What the user asked for (pan's run-time options).
#[derive(Clone, Debug)]
pub struct Options {
    /// Report invalid end states (pan without `-E`).
    pub end_states: bool,
    /// Report assertion violations and index errors (pan without `-A`).
    pub assertions: bool,
    /// A valid end state also needs every channel empty (pan `-q`).
    pub empty_channels: bool,
    pub max_depth: Option<u64>,
    pub max_states: Option<u64>,
    pub max_errors: Option<u64>,
    pub memory_limit: Option<u64>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            end_states: true,
            assertions: true,
            empty_channels: false,
            max_depth: None,
            max_states: None,
            max_errors: None,
            memory_limit: None,
        }
    }
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Stats {
    pub states_stored: u64,
    pub states_matched: u64,
    pub transitions: u64,
    pub atomic_steps: u64,
    pub depth_reached: u64,
    pub state_vector_bytes: u64,
    /// States a regression check did not explore (always 0 in a full check).
    pub states_pruned: u64,
    /// Strongly connected components of the stored state graph.
    pub sccs: u64,
    /// Time spent searching.
    #[serde(rename = "elapsed_ms", serialize_with = "millis")]
    pub elapsed: Duration,
    pub peak_memory_bytes: u64,
    /// Bytes of the visited set (state vectors and hash table), comparable with pan's memory
    /// for states plus its hash table.
    pub store_bytes: u64,
}

fn millis<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(d.as_millis() as u64)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ViolationKind {
    Assertion,
    InvalidEndState,
    IndexOutOfRange,
    DivisionByZero,
    #[serde(rename = "d_step-blocked")]
    DStepBlocked,
    TooManyProcesses,
    NonTerminatingAtomic,
    UninitialisedChannel,
    MessageFields,
    Unsupported,
}

impl ViolationKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ViolationKind::Assertion => "assertion",
            ViolationKind::InvalidEndState => "invalid-end-state",
            ViolationKind::IndexOutOfRange => "index-out-of-range",
            ViolationKind::DivisionByZero => "division-by-zero",
            ViolationKind::DStepBlocked => "d_step-blocked",
            ViolationKind::TooManyProcesses => "too-many-processes",
            ViolationKind::NonTerminatingAtomic => "non-terminating-atomic",
            ViolationKind::UninitialisedChannel => "uninitialised-channel",
            ViolationKind::MessageFields => "message-fields",
            ViolationKind::Unsupported => "unsupported",
        }
    }
}

/// One distinct violation with the steps from the initial state that reach it.
#[derive(Clone, Debug)]
pub struct Violation {
    pub kind: ViolationKind,
    /// The edge whose step violated (none for invalid end states).
    pub edge: Option<EdgeNo>,
    pub pid: Option<usize>,
    pub message: String,
    /// Invalid end states: (pid, proctype, location index) of each process not at a valid
    /// end, in pid order.
    pub blocked: Vec<(usize, usize, u32)>,
    pub trail: Vec<TrailStep>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Limit {
    Depth,
    States,
    Memory,
    Errors,
}

impl Limit {
    pub fn as_str(self) -> &'static str {
        match self {
            Limit::Depth => "depth",
            Limit::States => "states",
            Limit::Memory => "memory",
            Limit::Errors => "errors",
        }
    }
}

pub struct Outcome {
    pub stats: Stats,
    pub violations: Vec<Violation>,
    /// The limit that cut the search, if any (the run is then incomplete).
    pub limit: Option<Limit>,
    /// Per edge number: whether the edge was ever executed.
    pub executed: Vec<bool>,
    /// The initial state, from which trails replay.
    pub initial: Vec<u8>,
}

impl Outcome {
    pub fn complete(&self) -> bool {
        self.limit.is_none()
    }
}

const NONE: u32 = u32::MAX;

/// What makes a violation distinct: its kind, its edge, and for invalid end states the
/// blocked (proctype, location) tuple.
type ViolationKey = (ViolationKind, EdgeNo, Vec<(usize, u32)>);

struct Frame {
    /// Store id; NONE inside an atomic sequence.
    id: u32,
    /// This frame's state vector in the path arena.
    at: u64,
    len: u32,
    depth: u64,
    /// Where the enumeration of this state's successors stands.
    cursor: Cursor,
    lowlink: u32,
    /// Index of the nearest stored frame at or below this one.
    anchor: u32,
    step: Option<TrailStep>,
}

struct Search<'m, 'p> {
    m: &'m Machine<'p>,
    opts: &'m Options,
    store: Store,
    frames: Vec<Frame>,
    /// The state vector of every frame on the path, back to back.
    path: Vec<u8>,
    /// The state of the frame `loaded` (its index), decoded.
    cur: State,
    loaded: usize,
    /// The successor being built, and scratch.
    next: State,
    tmp: State,
    tarjan: Vec<u32>,
    assigned: Vec<u64>,
    stats: Stats,
    violations: Vec<Violation>,
    seen: HashSet<ViolationKey>,
    limit: Option<Limit>,
    executed: Vec<bool>,
}

/// Explores every reachable state of the machine. `progress` is called now and then with the
/// figures so far.
pub fn explore(m: &Machine, opts: &Options, progress: &mut dyn FnMut(&Stats)) -> Outcome {
    let started = Instant::now();
    let mut s = Search {
        m,
        opts,
        store: Store::new(),
        frames: Vec::new(),
        path: Vec::new(),
        cur: State::default(),
        loaded: usize::MAX,
        next: State::default(),
        tmp: State::default(),
        tarjan: Vec::new(),
        assigned: Vec::new(),
        stats: Stats::default(),
        violations: Vec::new(),
        seen: HashSet::new(),
        limit: None,
        executed: vec![false; m.edges.len()],
    };
    let initial = match m.initial() {
        Ok(st) => st,
        Err(f) => {
            s.report_fault(
                &FaultAt {
                    pid: 0,
                    edge: NONE,
                    rv: None,
                    fault: f,
                },
                &[],
            );
            return s.finish(Vec::new(), started);
        }
    };
    let initial_bytes = initial.v.clone();
    s.next = initial;
    s.visit(0, None, None);
    let mut tick = 0u32;
    while !s.frames.is_empty() {
        if s.limit.is_some() {
            break;
        }
        let fi = s.frames.len() - 1;
        if s.loaded != fi {
            let f = &s.frames[fi];
            s.cur.load(
                &s.m.layout,
                &s.path[f.at as usize..f.at as usize + f.len as usize],
            );
            s.loaded = fi;
        }
        let mut c = s.frames[fi].cursor;
        let r = s.m.next(&s.cur, &mut c, &mut s.next, &mut s.tmp);
        let depth = s.frames[fi].depth;
        if std::mem::take(&mut c.failed_offer) {
            // A rendezvous offer nobody took still reached the level below.
            s.reach(depth + 1);
        }
        s.frames[fi].cursor = c;
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
                    s.stats.peak_memory_bytes = s.memory();
                    progress(&s.stats);
                    if s.opts
                        .memory_limit
                        .is_some_and(|l| s.stats.peak_memory_bytes > l)
                    {
                        s.limit = Some(Limit::Memory);
                    }
                }
            }
            Next::Fault(f) => {
                s.mark(f.edge, f.rv);
                if s.seen.contains(&(fault_kind(&f.fault), f.edge, Vec::new())) {
                    continue;
                }
                let trail = s.path(Some(TrailStep {
                    pid: f.pid,
                    edge: f.edge,
                    rv: f.rv,
                }));
                s.report_fault(&f, &trail);
            }
            Next::Done => s.exhausted(fi),
        }
    }
    s.finish(initial_bytes, started)
}

impl Search<'_, '_> {
    fn memory(&self) -> u64 {
        (self.store.memory()
            + self.path.capacity()
            + self.frames.capacity() * std::mem::size_of::<Frame>()
            + self.assigned.capacity() * 8
            + self.tarjan.capacity() * 4) as u64
    }

    fn finish(mut self, initial: Vec<u8>, started: Instant) -> Outcome {
        self.stats.transitions = self.stats.states_stored + self.stats.states_matched;
        self.stats.elapsed = started.elapsed();
        self.stats.peak_memory_bytes = self.memory();
        self.stats.store_bytes = self.store.memory() as u64;
        Outcome {
            stats: self.stats,
            violations: self.violations,
            limit: self.limit,
            executed: self.executed,
            initial,
        }
    }

    fn path(&self, last: Option<TrailStep>) -> Vec<TrailStep> {
        self.frames
            .iter()
            .filter_map(|f| f.step)
            .chain(last)
            .collect()
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
                let trail = self.path(step);
                self.report(
                    ViolationKind::NonTerminatingAtomic,
                    Some(edge),
                    Some(p as usize),
                    "non-terminating atomic sequence: a state repeats inside one atomic run".into(),
                    Vec::new(),
                    trail,
                );
                return;
            }
            self.reach(depth);
            // Stored only if the process blocks inside the sequence (see `exhausted`).
            self.push(NONE, depth, Some(p), anchor.unwrap_or(NONE), step);
            return;
        }
        // Look the state up before anything else: most successors are already stored.
        let key = &self.next.v[self.m.layout.hidden_size as usize..];
        let (id, new) = self.store.insert(key);
        if !new {
            self.matched(id, anchor);
            return;
        }
        self.stored(id, depth, self.next.v.len());
        let idx = self.frames.len() as u32;
        self.push(id, depth, None, idx, step);
    }

    /// Counts a successor that is already stored; Tarjan hands its index to `anchor`, the
    /// nearest stored frame.
    fn matched(&mut self, id: u32, anchor: Option<u32>) {
        self.stats.states_matched += 1;
        if !self.is_assigned(id) {
            if let Some(a) = anchor {
                let f = &mut self.frames[a as usize];
                f.lowlink = f.lowlink.min(id);
            }
        }
    }

    /// Counts a newly stored state (vector of `len` bytes, hidden globals included).
    fn stored(&mut self, id: u32, depth: u64, len: usize) {
        self.stats.states_stored += 1;
        self.reach(depth);
        let vec_len = (len - self.m.layout.hidden_size as usize) as u64;
        self.stats.state_vector_bytes = self.stats.state_vector_bytes.max(vec_len);
        self.tarjan.push(id);
        if self
            .opts
            .max_states
            .is_some_and(|m| self.stats.states_stored >= m)
        {
            self.limit = Some(Limit::States);
        }
    }

    /// Pushes a frame for the state in `self.next`, which becomes the loaded state.
    fn push(
        &mut self,
        id: u32,
        depth: u64,
        only: Option<u8>,
        anchor: u32,
        step: Option<TrailStep>,
    ) {
        let at = self.path.len() as u64;
        self.path.extend_from_slice(&self.next.v);
        let cursor = Cursor::new(&self.next, only);
        self.frames.push(Frame {
            id,
            at,
            len: self.next.v.len() as u32,
            depth,
            cursor,
            lowlink: id,
            anchor,
            step,
        });
        std::mem::swap(&mut self.cur, &mut self.next);
        self.loaded = self.frames.len() - 1;
    }

    /// The frame on top has no successors left.
    fn exhausted(&mut self, fi: usize) {
        let f = &self.frames[fi];
        if f.cursor.moved == 0 {
            if f.id == NONE {
                // The process blocked inside its atomic sequence: the state is stored and
                // every process may move from it.
                let key = &self.cur.v[self.m.layout.hidden_size as usize..];
                let (id, new) = self.store.insert(key);
                if !new {
                    let anchor = self.frames[fi].anchor;
                    self.matched(id, (anchor != NONE).then_some(anchor));
                    self.pop();
                    return;
                }
                let depth = self.frames[fi].depth;
                self.stored(id, depth, self.cur.v.len());
                let f = &mut self.frames[fi];
                f.id = id;
                f.lowlink = id;
                f.anchor = fi as u32;
                f.cursor = Cursor::new(&self.cur, None);
                return;
            }
            if self.opts.end_states {
                self.check_end_state();
            }
        }
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

    /// Inside one atomic run (the unstored frames above the nearest stored one), does the
    /// state in `self.next` already occur on the path?
    fn repeats_in_atomic_run(&self) -> bool {
        let me = &self.next.v[..];
        for f in self.frames.iter().rev() {
            let theirs = &self.path[f.at as usize..f.at as usize + f.len as usize];
            if theirs == me {
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
        if self.seen.contains(&(kind, step.edge, Vec::new())) {
            return;
        }
        let trail = self.path(Some(step));
        let e = self.m.edge(step.edge);
        let message = match flag {
            Flag::Assertion => format!(
                "assertion violated {}",
                e.text.strip_prefix("assert").unwrap_or(&e.text)
            ),
            Flag::SendFields => "too few parameters in send: the message has more fields".into(),
            Flag::RecvFields => "missing parameters in receive: the message has more fields".into(),
        };
        self.report(
            kind,
            Some(step.edge),
            Some(step.pid as usize),
            message,
            Vec::new(),
            trail,
        );
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

    fn report_fault(&mut self, f: &FaultAt, trail: &[TrailStep]) {
        let kind = fault_kind(&f.fault);
        if kind == ViolationKind::IndexOutOfRange && !self.opts.assertions {
            return;
        }
        let edge = (f.edge != NONE).then_some(f.edge);
        let message = fault_message(&f.fault);
        self.report(
            kind,
            edge,
            Some(f.pid as usize),
            message,
            Vec::new(),
            trail.to_vec(),
        );
    }

    fn report(
        &mut self,
        kind: ViolationKind,
        edge: Option<EdgeNo>,
        pid: Option<usize>,
        message: String,
        blocked: Vec<(usize, usize, u32)>,
        trail: Vec<TrailStep>,
    ) {
        let key = (
            kind,
            edge.unwrap_or(NONE),
            blocked.iter().map(|&(_, t, l)| (t, l)).collect::<Vec<_>>(),
        );
        if !self.seen.insert(key) {
            return;
        }
        self.violations.push(Violation {
            kind,
            edge,
            pid,
            message,
            blocked,
            trail,
        });
        if self
            .opts
            .max_errors
            .is_some_and(|m| self.violations.len() as u64 >= m)
        {
            self.limit = Some(Limit::Errors);
        }
    }

    /// A stored state without successors: every process must be at a valid end (its end or
    /// an `end` label), and with `-q` every channel empty.
    fn check_end_state(&mut self) {
        let mut blocked = Vec::new();
        for pid in 0..self.cur.nr_pr() {
            let ok = self.m.location(&self.cur, pid).is_some_and(|l| l.end);
            if !ok {
                blocked.push((pid, self.cur.ptype(pid), self.m.loc_no(&self.cur, pid)));
            }
        }
        let chans_full = self.opts.empty_channels
            && (0..self.cur.chans.len()).any(|c| {
                let at = self.cur.chans[c] as usize;
                self.cur.chan_len(at) > 0
            });
        if blocked.is_empty() && !chans_full {
            return;
        }
        let message = if blocked.is_empty() {
            "invalid end state: channels not empty".to_string()
        } else {
            "invalid end state".to_string()
        };
        let trail = self.path(None);
        self.report(
            ViolationKind::InvalidEndState,
            None,
            None,
            message,
            blocked,
            trail,
        );
    }

    fn is_assigned(&self, id: u32) -> bool {
        let (w, b) = (id as usize / 64, id % 64);
        self.assigned.get(w).is_some_and(|x| x >> b & 1 == 1)
    }

    fn set_assigned(&mut self, id: u32) {
        let (w, b) = (id as usize / 64, id % 64);
        if self.assigned.len() <= w {
            self.assigned.resize(w + 1, 0);
        }
        self.assigned[w] |= 1 << b;
    }

    fn pop(&mut self) {
        let Some(f) = self.frames.pop() else {
            return;
        };
        self.path.truncate(f.at as usize);
        if self.loaded >= self.frames.len() {
            self.loaded = usize::MAX;
        }
        if f.id == NONE {
            return;
        }
        if f.lowlink == f.id {
            while let Some(w) = self.tarjan.pop() {
                self.set_assigned(w);
                if w == f.id {
                    break;
                }
            }
            self.stats.sccs += 1;
        } else if let Some(a) = self.anchor() {
            let p = &mut self.frames[a as usize];
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
        Fault::DStepBlocked => ViolationKind::DStepBlocked,
        Fault::NonTerminatingAtomic => ViolationKind::NonTerminatingAtomic,
        Fault::BadChan => ViolationKind::UninitialisedChannel,
        Fault::RecvFields => ViolationKind::MessageFields,
        Fault::Unsupported(_) => ViolationKind::Unsupported,
    }
}

/// The kind of violation a completed step reported.
pub fn flag_kind(f: Flag) -> ViolationKind {
    match f {
        Flag::Assertion => ViolationKind::Assertion,
        Flag::SendFields | Flag::RecvFields => ViolationKind::MessageFields,
    }
}

fn fault_message(f: &Fault) -> String {
    match f {
        Fault::Index { var, index, len } => {
            format!("array index out of range: {var}[{index}] (size {len})")
        }
        Fault::DivZero => "division by zero".into(),
        Fault::TooManyProcs => "too many processes (255 is the most)".into(),
        Fault::DStepBlocked => "d_step blocks after its first statement".into(),
        Fault::NonTerminatingAtomic => "non-terminating d_step".into(),
        Fault::BadChan => "use of an uninitialised channel".into(),
        Fault::RecvFields => "wrong number of message fields in receive (constants only)".into(),
        Fault::Unsupported(what) => format!("not supported: {what}"),
    }
}
