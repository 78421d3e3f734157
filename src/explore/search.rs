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
use super::succ::{FaultAt, Gen, Succ};
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
    /// Strongly connected components of the stored state graph.
    pub sccs: u64,
    pub memory_bytes: u64,
    /// Bytes of the visited set (state vectors and hash table), comparable with pan's memory
    /// for states plus its hash table.
    pub store_bytes: u64,
    #[serde(skip)]
    pub elapsed: Duration,
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
    /// This frame's state vector in the generator's byte stack.
    at: u64,
    len: u32,
    depth: u64,
    /// Successors: `next..end` in the generator's item stack are still to visit.
    next: u32,
    end: u32,
    bytes_mark: u64,
    lowlink: u32,
    /// Index of the nearest stored frame at or below this one.
    anchor: u32,
    step: Option<TrailStep>,
}

struct Search<'m, 'p> {
    m: &'m Machine<'p>,
    opts: &'m Options,
    store: Store,
    g: Gen,
    frames: Vec<Frame>,
    cur: State,
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
        g: Gen::default(),
        frames: Vec::new(),
        cur: State::default(),
        tarjan: Vec::new(),
        assigned: Vec::new(),
        stats: Stats::default(),
        violations: Vec::new(),
        seen: HashSet::new(),
        limit: None,
        executed: vec![false; m.edges.len()],
    };
    let initial = match m.initial() {
        Ok(st) => st.v,
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
    s.g.bytes.extend_from_slice(&initial);
    s.visit(0, initial.len() as u32, 0, None, None);
    let mut tick = 0u32;
    while let Some(top) = s.frames.last_mut() {
        if s.limit.is_some() {
            break;
        }
        if top.next < top.end {
            let item = s.g.items[top.next as usize];
            top.next += 1;
            let depth = top.depth + if item.rv.is_some() { 2 } else { 1 };
            let step = TrailStep {
                pid: item.pid,
                edge: item.edge,
                rv: item.rv,
            };
            let atomic = item.atomic.then(|| item.mover());
            s.visit(item.start, item.len, depth, atomic, Some(step));
            tick += 1;
            if tick & 0xffff == 0 {
                s.stats.elapsed = started.elapsed();
                s.stats.memory_bytes = s.memory();
                progress(&s.stats);
                if s.opts
                    .memory_limit
                    .is_some_and(|l| s.stats.memory_bytes > l)
                {
                    s.limit = Some(Limit::Memory);
                }
            }
        } else {
            s.pop();
        }
    }
    s.finish(initial, started)
}

impl Search<'_, '_> {
    fn memory(&self) -> u64 {
        (self.store.memory()
            + self.g.bytes.capacity()
            + self.g.items.capacity() * std::mem::size_of::<Succ>()
            + self.frames.capacity() * std::mem::size_of::<Frame>()
            + self.assigned.capacity() * 8
            + self.tarjan.capacity() * 4) as u64
    }

    fn finish(mut self, initial: Vec<u8>, started: Instant) -> Outcome {
        self.stats.transitions = self.stats.states_stored + self.stats.states_matched;
        self.stats.elapsed = started.elapsed();
        self.stats.memory_bytes = self.memory();
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

    fn visit(
        &mut self,
        at: u64,
        len: u32,
        depth: u64,
        atomic: Option<u8>,
        step: Option<TrailStep>,
    ) {
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
        let items0 = self.g.items.len() as u32;
        let bytes0 = self.g.bytes.len() as u64;
        let anchor = self.anchor();
        if let Some(p) = atomic {
            self.load(at, len);
            self.stats.atomic_steps += 1;
            if self.repeats_in_atomic_run(at, len) {
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
            let n = self.m.successors(&self.cur, Some(p as usize), &mut self.g);
            if n > 0 {
                self.after_generation(step, depth);
                self.frames.push(Frame {
                    id: NONE,
                    at,
                    len,
                    depth,
                    next: items0,
                    end: self.g.items.len() as u32,
                    bytes_mark: bytes0,
                    lowlink: NONE,
                    anchor: anchor.unwrap_or(NONE),
                    step,
                });
                return;
            }
            // Blocked inside the sequence: the state is stored and everyone may move.
        }
        // Look the state up before decoding it: most successors are already stored.
        let key = &self.g.bytes
            [at as usize + self.m.layout.hidden_size as usize..at as usize + len as usize];
        let (id, new) = self.store.insert(key);
        if !new {
            self.stats.states_matched += 1;
            if !self.is_assigned(id) {
                if let Some(a) = anchor {
                    let f = &mut self.frames[a as usize];
                    f.lowlink = f.lowlink.min(id);
                }
            }
            return;
        }
        self.stats.states_stored += 1;
        self.reach(depth);
        if atomic.is_none() {
            self.load(at, len);
        }
        let vec_len = (len - self.m.layout.hidden_size) as u64;
        self.stats.state_vector_bytes = self.stats.state_vector_bytes.max(vec_len);
        self.tarjan.push(id);
        if self
            .opts
            .max_states
            .is_some_and(|m| self.stats.states_stored >= m)
        {
            self.limit = Some(Limit::States);
        }
        let n = self.m.successors(&self.cur, None, &mut self.g);
        self.after_generation(step, depth);
        if n == 0 && self.opts.end_states {
            self.check_end_state(step);
        }
        let idx = self.frames.len() as u32;
        self.frames.push(Frame {
            id,
            at,
            len,
            depth,
            next: items0,
            end: self.g.items.len() as u32,
            bytes_mark: bytes0,
            lowlink: id,
            anchor: idx,
            step,
        });
    }

    fn load(&mut self, at: u64, len: u32) {
        self.cur.v.clear();
        self.cur
            .v
            .extend_from_slice(&self.g.bytes[at as usize..at as usize + len as usize]);
        self.cur.rescan(&self.m.layout);
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

    /// Inside one atomic run (the unstored frames above the nearest stored one), does this
    /// state already occur on the path?
    fn repeats_in_atomic_run(&self, at: u64, len: u32) -> bool {
        let me = &self.g.bytes[at as usize..at as usize + len as usize];
        for f in self.frames.iter().rev() {
            let theirs = &self.g.bytes[f.at as usize..f.at as usize + f.len as usize];
            if theirs == me {
                return true;
            }
            if f.id != NONE {
                break;
            }
        }
        false
    }

    /// Marks executed edges, reports failed assertions and faults of the steps just
    /// generated from the current state (at `depth`).
    fn after_generation(&mut self, step: Option<TrailStep>, depth: u64) {
        if std::mem::take(&mut self.g.failed_offer) {
            // A rendezvous offer nobody took still reached the level below.
            self.reach(depth + 1);
        }
        let first = self.frames.last().map(|f| f.end as usize).unwrap_or(0);
        for i in first..self.g.items.len() {
            let it = self.g.items[i];
            self.mark(it.edge, it.rv);
            let Some(flag) = it.flag else {
                continue;
            };
            if flag == Flag::Assertion && !self.opts.assertions {
                continue;
            }
            let kind = flag_kind(flag);
            if self.seen.contains(&(kind, it.edge, Vec::new())) {
                continue;
            }
            let mut trail = self.path(step);
            trail.push(TrailStep {
                pid: it.pid,
                edge: it.edge,
                rv: it.rv,
            });
            let e = self.m.edge(it.edge);
            let message = match flag {
                Flag::Assertion => format!(
                    "assertion violated {}",
                    e.text.strip_prefix("assert").unwrap_or(&e.text)
                ),
                Flag::SendFields => {
                    "too few parameters in send: the message has more fields".to_string()
                }
                Flag::RecvFields => {
                    "missing parameters in receive: the message has more fields".to_string()
                }
            };
            self.report(
                kind,
                Some(it.edge),
                Some(it.pid as usize),
                message,
                Vec::new(),
                trail,
            );
        }
        let faults = std::mem::take(&mut self.g.faults);
        for f in &faults {
            self.mark(f.edge, f.rv);
            let mut trail = self.path(step);
            trail.push(TrailStep {
                pid: f.pid,
                edge: f.edge,
                rv: f.rv,
            });
            self.report_fault(f, &trail);
        }
        self.g.faults = faults;
        self.g.faults.clear();
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
    fn check_end_state(&mut self, step: Option<TrailStep>) {
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
        let trail = self.path(step);
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
        // This frame's successors start where its parent's end.
        let items_start = self.frames.last().map(|p| p.end as usize).unwrap_or(0);
        self.g.truncate(items_start, f.bytes_mark as usize);
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
