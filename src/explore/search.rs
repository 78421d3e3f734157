//! The search: an iterative depth-first exploration of every reachable state with pan's
//! counting (states stored and matched, atomic steps, depth), Tarjan's SCC bookkeeping inside
//! the DFS, and every distinct violation reported once with the path that reached it.
//!
//! States inside an atomic sequence are not stored: they are frames on the path without a
//! store id, and the Tarjan updates they see go to the nearest stored frame below them. A
//! rendezvous is one successor (its middle state never exists here), two levels deep.
//!
//! What rides along (recording reachable sets and the state graph, pruning, replaying a
//! recorded expansion instead of executing it, progress) plugs in through `Rider`; there is
//! one search loop. A replayed frame takes its events from the rider and makes the same
//! moves, in the same order, as an executed one, so the figures are the same.
//!
//! One file of about 1,500 lines, on purpose: the search loop, pan's counting and Tarjan's
//! bookkeeping share the frames and their invariants at every step; kept together, the one
//! loop stays one (see `Rider` for what rides along from other modules).

use crate::explore::Blocked;
use std::time::Instant;

use super::budget::{Budget, OutOfMemory};
use super::chunked::{ByteStack, ChunkedVec, Pos};
use super::eval::Fault;
use super::event::{End, Event, To};
use super::exec::Flag;
use super::machine::{EdgeNo, Machine};
use super::outcome::{Limit, Options, Outcome, Pid, Stats, Violation, ViolationKind};
use super::property::{self, Key, Register};
use super::state::State;
use super::store::Store;
use super::succ::{Cursor, FaultAt, Next};
use super::trail::TrailStep;

pub mod acceptors;
mod fair;
mod fair_graph;
mod product;

pub use fair::MAX_FAIR_PROCS;

/// What the search does with a state stored for the first time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Visit {
    /// Explore its successors with the interpreter.
    Expand,
    /// Do not explore it: its sub-state-space is known (a pruned state).
    Skip,
    /// Explore it with the events the rider gives back (`Rider::replay`): its expansion is
    /// known, so nothing is executed, and the search's figures are those of `Expand`.
    Replay,
    /// Explore its successors with the interpreter, asking the rider before each process
    /// of the first pass whether its moves are executed or given back (`Rider::group`).
    Partly,
}

/// Work that rides along the one search: told about every stored state, every step through
/// an atomic sequence, every transition to a state already stored, every violation (each
/// occurrence, not only the first), every event of an executed expansion and every completed
/// strongly connected component; and, for a replay, the source of the events of the states
/// it knows. Every method has a default that does nothing, so a plain check pays nothing.
pub trait Rider {
    /// The search starts; the rider takes the memory of its own structures from `budget`.
    fn begin(&mut self, _budget: &Budget) {}
    /// Whether the rider knows states by a key of its own (a record's): then every state the
    /// interpreter builds is first looked up with `lookup`, and a state known by key is the
    /// same state however it was reached.
    fn keyed(&self) -> bool {
        false
    }
    /// The key of a built state, when the rider knows it. A built state the search stores
    /// is always the one it last looked up (and did not find), so the rider may keep what
    /// the lookup made of it for `stored`.
    fn lookup(&mut self, _m: &Machine, _st: &State) -> Option<u32> {
        None
    }
    /// A state stored for the first time, with its search id (its Tarjan index): its
    /// vector when the interpreter built it, its key when the rider knows it.
    fn stored(&mut self, _m: &Machine, _id: u32, _st: Option<&State>, _key: Option<u32>) -> Visit {
        Visit::Expand
    }
    /// The bytes of a known state's vector and of pan's (for the figures), without its
    /// vector.
    fn shape(&mut self, _m: &Machine, _key: u32) -> (u64, u64) {
        (0, 0)
    }
    /// Builds a known state (its vector and offsets), to execute it. False: the rider
    /// cannot.
    fn load(&mut self, _m: &Machine, _key: u32, _out: &mut State) -> bool {
        false
    }
    /// The next event of the state being replayed (the last one `stored` answered with
    /// `Replay` whose enumeration is not over). For `End::Invalid` the blocked processes go
    /// to `blocked`.
    fn replay(&mut self, _m: &Machine, _blocked: &mut Vec<Blocked>) -> Event {
        Event::End(End::Leave)
    }
    /// Whether the rider wants each stored state's expansion in groups, one per process of
    /// the first pass (`Event::Group`), so that a record can replay one process's moves
    /// while the others' are executed.
    fn groups(&self) -> bool {
        false
    }
    /// What to do with process `pid`'s moves in the expansion of the stored state `id`
    /// (its vector `st`), which the search executes: execute them, or take them from the
    /// rider (`replay` until `End::Group`), or nothing (none were recorded, and none can
    /// have appeared).
    fn group(&mut self, _m: &Machine, _id: u32, _st: &State, _pid: Pid) -> GroupPlan {
        GroupPlan::Execute
    }
    /// An event of an expansion, executed or replayed, in order, with states named by
    /// search id (`blocked`: for `End::Invalid`).
    fn event(&mut self, _m: &Machine, _ev: &Event, _blocked: &[Blocked]) {}
    /// A step of an executed expansion created processes: `st` is the state it built, and
    /// the processes from `first` on are new.
    fn created(&mut self, _m: &Machine, _st: &State, _first: usize) {}
    /// A state the search passes inside an atomic sequence (not stored): it belongs to the
    /// stored state the sequence started from. `step` led to it: only its process (and a
    /// rendezvous partner) moved, unless processes were created or died.
    fn passed(&mut self, _m: &Machine, _st: &State, _step: Option<TrailStep>) {}
    /// A transition into the stored state `id`; `done` when its component is complete.
    fn matched(&mut self, _id: u32, _done: bool) {}
    /// A violation occurred at the state being expanded (every occurrence).
    fn violation(
        &mut self,
        _m: &Machine,
        _kind: ViolationKind,
        _edge: Option<EdgeNo>,
        _blocked: &[Blocked],
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
    /// The rider met something it cannot go on from (a record that contradicts itself): the
    /// search stops, and the rider says why.
    fn failed(&self) -> bool {
        false
    }
    /// In a product with a never claim: the system's moves come from a recorded state graph
    /// of the system alone (`rmc::run::product_replay`), whose initial state is this slot
    /// (None: the search executes them). Product states are then known by (slot, claim
    /// location), and only those the search enters are built (`build_product`).
    fn system_graph(&self) -> Option<u32> {
        None
    }
    /// A system turn from the recorded state `slot` begins (`timeout`: the claim's turn
    /// before it allowed `timeout`): its recorded expansion is read (`system_event`) until
    /// the turn is over (`close_system`). Turns nest as frames do.
    fn open_system(&mut self, _slot: u32, _timeout: bool) {}
    /// The turn begun last is over.
    fn close_system(&mut self) {}
    /// The turn begun last reads its pass again from its start (weak fairness tries the
    /// processes again): the first pass, or (`tail`) the pass with `timeout` true.
    fn restart_system(&mut self, _tail: bool) {}
    /// The group of moves whose marker the turn begun last just told is left unread.
    fn skip_group(&mut self) {}
    /// The atomic run the step the turn begun last just told enters is left unread.
    fn skip_run(&mut self) {}
    /// The search met, in a recorded turn, what it cannot follow there: it stops, and the
    /// caller searches the product instead (a choice, never a verdict).
    fn give_up(&mut self) {}
    /// The next event of the turn begun last, atomic runs inline as recorded, and
    /// `Event::Group` without a pid where the first pass over the processes is over and the
    /// pass with `timeout` true begins (None: the record is malformed, or holds what the
    /// rider cannot hand over).
    fn system_event(&mut self) -> Option<Event> {
        None
    }
    /// Builds the product state of the recorded state `slot` with the claim at location
    /// index `claim_loc`. False: the rider cannot.
    fn build_product(
        &mut self,
        _m: &Machine,
        _slot: u32,
        _claim_loc: u32,
        _out: &mut State,
    ) -> bool {
        false
    }
}

/// What `Rider::group` makes of one process's moves in an executed expansion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroupPlan {
    /// The interpreter executes them.
    Execute,
    /// They come from the rider, as a group whose recorded footprint is `foot`.
    Replay { foot: u32, rv: bool },
    /// There are none.
    Skip,
}

/// The rider of a plain check.
pub struct NoRider;

impl Rider for NoRider {}

const NONE: u32 = u32::MAX;
/// How many frames below the top keep their decoded states (`Search::kept`).
const KEPT: usize = 64;
/// A frame's group before its first event, and its second pass.
const NO_GROUP: u16 = 0x100;
const TAIL: u16 = 0x101;

/// One state of the search's path. A search can be millions of frames deep, so a frame is
/// kept small (100 bytes: its cursor 40, the step that reached it packed in 12, its depth
/// in 4).
#[derive(Clone, Copy)]
struct Frame {
    /// Search id; NONE inside an atomic sequence.
    id: u32,
    /// The store id of the stored part of its vector; NONE when the path holds the whole
    /// vector (inside an atomic sequence, or a state a replay knows by key) or none of it
    /// (a replayed frame).
    sid: u32,
    /// In the path: the hidden globals of a frame whose vector is in the store, else the
    /// whole vector (nothing for a replayed frame).
    at: Pos,
    len: u32,
    /// Its depth: a path deep enough not to fit would need 2^31 frames, far past any
    /// memory budget, so it saturates there rather than fail.
    depth: u32,
    /// Where the enumeration of this state's successors stands (executed frames).
    cursor: Cursor,
    /// Its events come from the rider (`Visit::Replay`, and the atomic states under one).
    replay: bool,
    lowlink: u32,
    /// Index of the nearest stored frame at or below this one.
    anchor: u32,
    /// The group of moves the frame's events belong to (`NO_GROUP`, `TAIL`, or a pid),
    /// when its cursor does not announce them.
    group: u16,
    step: StepIn,
    /// In a product with a never claim (`product`): whose turn it is and pan's other bits
    /// (`product::CLAIM`, ...); always 0 without a claim. (A claim's turn keeps where its
    /// options stand in `cursor`.)
    tau: u8,
    /// The process that held atomic control here blocked, and the state was stored (or met
    /// in place): the atomic run that reaches it again with that process blocks there again.
    blocked_atomic: bool,
    /// A product over a recorded system graph (`Rider::system_graph`): the recorded state
    /// the frame's system part is (NONE inside a replayed atomic run), and `SYS_*` bits.
    slot: u32,
    sys: u8,
    /// Inside an atomic run the interpreter built, and for a stored state (where an atomic
    /// run may start): a short hash of the frame's vector (`quick_hash`), which tells most
    /// states of the run apart without comparing their bytes (a stored state's half in the
    /// store is a cache miss away); 0 where none was taken.
    hash: u32,
}

impl Frame {
    fn depth(&self) -> u64 {
        u64::from(self.depth)
    }

    fn step(&self) -> Option<TrailStep> {
        self.step.get()
    }
}

fn narrow_depth(depth: u64) -> u32 {
    u32::try_from(depth).unwrap_or(u32::MAX)
}

/// The step that reached a frame (`Option<TrailStep>`, which takes 20 bytes), in 12.
#[derive(Clone, Copy)]
struct StepIn {
    edge: EdgeNo,
    rv_edge: EdgeNo,
    pid: Pid,
    rv_pid: u8,
    /// 0: none (the initial state); 1: a step; 2: a rendezvous (`rv_pid`, `rv_edge`).
    kind: u8,
}

impl StepIn {
    fn new(step: Option<TrailStep>) -> StepIn {
        let (kind, pid, edge, (rv_pid, rv_edge)) = match step {
            None => (0, 0, 0, (0, 0)),
            Some(s) => match s.rv {
                None => (1, s.pid, s.edge, (0, 0)),
                Some(rv) => (2, s.pid, s.edge, rv),
            },
        };
        StepIn {
            edge,
            rv_edge,
            pid,
            rv_pid,
            kind,
        }
    }

    fn get(self) -> Option<TrailStep> {
        (self.kind != 0).then_some(TrailStep {
            pid: self.pid,
            edge: self.edge,
            rv: (self.kind == 2).then_some((self.rv_pid, self.rv_edge)),
        })
    }
}

/// A short hash of a state's vector, never 0: two states whose hashes differ differ.
/// Cheap beside a comparison of the bytes, which an atomic run otherwise makes with every
/// state of the run at every step (`repeats_in_atomic_run`: 11 % of a check of the
/// sample's elevator, whose states take six atomic steps each on average).
#[inline]
fn quick_hash(v: &[u8]) -> u32 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mut h = v.len() as u64;
    let mut words = v.chunks_exact(8);
    for w in &mut words {
        let w = u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]);
        h = (h.rotate_left(5) ^ w).wrapping_mul(K);
    }
    for &b in words.remainder() {
        h = (h.rotate_left(5) ^ u64::from(b)).wrapping_mul(K);
    }
    ((h >> 32) as u32) | 1
}

/// The frame began a system turn the rider reads (`Rider::open_system`).
const SYS_OPEN: u8 = 1;
/// The frame is a state inside a replayed atomic run: it has no vector, and its events
/// come from the turn its run started in.
const SYS_NOVEC: u8 = 2;
/// The frame's system turn read past the first pass, which the claim did not let `timeout`
/// follow: only failed offers count there, up to the first other event.
const SYS_TAIL: u8 = 4;
/// The recorded turn is over and moved nothing (weak fairness's default move leaves the
/// frame, which finds it over again when it is back on top).
const SYS_BLOCKED: u8 = 8;

/// Where a step led, as the search learns it: a state the interpreter built (in `next`), or
/// what a replayed event says.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Target {
    Built,
    Replayed(To),
}

/// Who a state is: stored before (its search id), or new.
enum Ident {
    Known(u32),
    New {
        id: u32,
        /// Its store id (NONE when known by key).
        sid: u32,
        key: Option<u32>,
    },
}

struct Search<'m, 'p, R: Rider> {
    m: &'m Machine<'p>,
    opts: &'m Options,
    rider: &'m mut R,
    budget: Budget,
    store: Store,
    /// A replay: states the rider knows are kept by key (`ext`: key → search id), the
    /// others in the store (`sids`: store id → search id).
    keyed: bool,
    /// How often a built state was known by key, and found in the store (which to ask
    /// first).
    by_key: u64,
    in_store: u64,
    ext: ChunkedVec<u32>,
    /// Filled only once a state is stored out of the store's order (one the rider knew by
    /// key came first): until then a store id is its search id, and a state met again costs
    /// no lookup in a second table.
    sids: ChunkedVec<u32>,
    frames: ChunkedVec<Frame>,
    path: ByteStack,
    /// The state of the frame `loaded` (its index), decoded.
    cur: State,
    loaded: usize,
    /// Decoded states of frames below the top, by frame index modulo `KEPT`: a frame's
    /// state is put here when a child is pushed above it, so that coming back to it after
    /// the child is left swaps it back instead of decoding it again (a copy and a scan of
    /// its records). A slot is its frame's only while `kept_by` says so.
    kept: Vec<State>,
    kept_by: Vec<usize>,
    /// The successor being built, and scratch.
    next: State,
    tmp: State,
    tarjan: ChunkedVec<u32>,
    assigned: ChunkedVec<u64>,
    stats: Stats,
    found: Register,
    limit: Option<Limit>,
    /// The limit on states stored (`Options::max_states`, or what `AtLimit::GoOn` set).
    max_states: Option<u64>,
    stopped_by: Option<ViolationKind>,
    executed: Vec<bool>,
    blocked: Vec<Blocked>,
    keys: Vec<Key>,
    hidden: usize,
    initial: Vec<u8>,
    halted: bool,
    /// Stored states' expansions are announced in groups (`Rider::groups`).
    grouped: bool,
    /// The group begun last (its pid; None: the end of the first pass), whose marker is
    /// told to the rider with its first event (an empty group is never told).
    pending: Option<Option<u8>>,
    /// The search is the product with the machine's never claim (`product`), or runs the
    /// product's loop without one (`solo`).
    claim: bool,
    /// With -a and no never claim (pan -a built without one): the system alone, every state
    /// outside atomic sequences stored, accepting where a process is at an accept label.
    solo: bool,
    /// The product's bits of the frame pushed next (`Frame::tau`; 0 without a claim).
    next_tau: u8,
    /// The nested search for acceptance cycles (a product with -a).
    ndfs: Option<Box<product::Ndfs>>,
    /// Weak fairness rides the nested search (a product with -a -f).
    fair: bool,
    /// A path reached the depth limit and was cut there.
    depth_cut: bool,
    /// The successor after the one being visited, built before the visit (its state in
    /// `ahead_st`) so that the lookups of both overlap the work between them.
    ahead: Option<Ahead>,
    ahead_st: State,
    /// Successors are built ahead (not with an event trace, whose bookkeeping follows the
    /// order of the calls).
    lookahead: bool,
    /// The system's moves come from the rider's recorded graph (`Rider::system_graph`):
    /// how many locations the claim has (a product state's key is slot × this + the
    /// claim's location index; 1 without a claim).
    sys_graph: Option<u32>,
    /// The recorded state the system part of `next` is (with `sys_graph`).
    next_slot: u32,
    /// `next` is still to be built from this (slot, claim location), when it is entered.
    next_pending: Option<(u32, u32)>,
    /// The claim's location in each system turn the rider reads (`SYS_OPEN` frames).
    sys_q: Vec<u32>,
    /// With -a over a recorded graph, where processes have accept labels: which of them
    /// stand at one, per frame that reads a system turn.
    acceptors: Option<acceptors::TurnAcceptors>,
}

/// What the interpreter returned for frame `fi` after the successor being visited, and its
/// cursor after that. It stays good while `fi` is on the stack: the frame's state and
/// cursor do not change under the frames above it. (Keeping one per frame, so that a frame
/// back on top after a visit that pushed others need not build it again, measured slower:
/// more state buffers in play than the cache holds near.)
struct Ahead {
    fi: usize,
    cursor: Cursor,
    r: Next,
}

/// Explores every reachable state of the machine. `progress` is called now and then with the
/// figures so far.
pub fn explore(m: &Machine, opts: &Options, progress: &mut dyn FnMut(&Stats)) -> Outcome {
    search(m, opts, &mut NoRider, progress)
}

/// What a search does at its limit on states (`Options::max_states`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtLimit {
    /// It stops there (incomplete).
    Stop,
    /// It goes on as if it had been started with `max_states` (None: no limit), `held`
    /// more bytes being held beside it from then on (taken from its memory budget).
    GoOn { max_states: Option<u64>, held: u64 },
}

/// The one search, with a rider.
pub fn search<R: Rider>(
    m: &Machine,
    opts: &Options,
    rider: &mut R,
    progress: &mut dyn FnMut(&Stats),
) -> Outcome {
    search_paused(m, opts, rider, progress, &mut |_| AtLimit::Stop)
}

/// `search`, which asks `at_limit` what to do when it reaches its limit on states: a search
/// that goes on is the one it would have been without that limit (the same figures,
/// violations and rider calls), so a first part of a check can be taken before deciding
/// whether the rest is wanted. Only a safety search pauses: a product search cuts some
/// moves short at its limit, so it stops there.
pub fn search_paused<R: Rider>(
    m: &Machine,
    opts: &Options,
    rider: &mut R,
    progress: &mut dyn FnMut(&Stats),
    at_limit: &mut dyn FnMut(&Stats) -> AtLimit,
) -> Outcome {
    let mut started = Instant::now();
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
                cycle: None,
                cycle_depth: None,
            });
            let mut out = empty(None, found);
            out.stopped_by = kind.is_fatal().then_some(kind);
            return out;
        }
    };
    let keyed = rider.keyed();
    // Not with priorities: which process may move then depends on every other one.
    let grouped = rider.groups() && !m.layout.uses_priority;
    let mut s = Search {
        m,
        opts,
        rider,
        frames: ChunkedVec::new(budget.clone(), 1 << 20),
        path: ByteStack::new(budget.clone(), 1 << 20),
        tarjan: ChunkedVec::new(budget.clone(), 1 << 18),
        assigned: ChunkedVec::new(budget.clone(), 1 << 16),
        ext: ChunkedVec::new(budget.clone(), 1 << 18),
        sids: ChunkedVec::new(budget.clone(), 1 << 16),
        keyed,
        by_key: 0,
        in_store: 0,
        budget,
        store,
        cur: State::default(),
        loaded: usize::MAX,
        kept: vec![State::default(); KEPT],
        kept_by: vec![usize::MAX; KEPT],
        next: State::default(),
        tmp: State::default(),
        stats: Stats::default(),
        found,
        limit: None,
        max_states: opts.max_states,
        stopped_by: None,
        executed: vec![false; m.edges.len()],
        blocked: Vec::new(),
        keys: Vec::new(),
        hidden: m.layout.hidden_size as usize,
        initial: initial.v.clone(),
        halted: false,
        grouped,
        pending: None,
        // (-a without a claim and without accept labels is a safety search, as pan ignores
        // its -a then.)
        claim: m.claim.is_some() || (opts.acceptance && m.system_accepts),
        solo: m.claim.is_none(),
        next_tau: 0,
        ndfs: None,
        fair: false,
        depth_cut: false,
        ahead: None,
        ahead_st: State::default(),
        lookahead: m.trace.is_none(),
        sys_graph: None,
        next_slot: NONE,
        next_pending: None,
        sys_q: Vec::new(),
        acceptors: None,
    };
    if let Some(slot) = s.rider.system_graph() {
        // (Without a claim, -a over the graph: a product state is its system state.)
        let locs = m.claim.as_ref();
        let locs = locs.map_or(1, |c| m.prog.procs[c.proc].automaton.locations.len() as u32);
        s.sys_graph = Some(locs);
        s.next_slot = slot;
        s.lookahead = false;
    }
    s.solo &= s.claim;
    if s.claim && opts.acceptance {
        s.fair = opts.fair;
        s.ndfs = Some(Box::new(product::Ndfs::new(&s.budget, opts.fair, !s.solo)));
        // (Weak fairness over a graph follows how many processes run, which the sets
        // carry.)
        if s.sys_graph.is_some() && (m.system_accepts || opts.fair) {
            s.acceptors = Some(acceptors::TurnAcceptors::default());
        }
    }
    s.rider.begin(&s.budget);
    if let Some(t) = &m.trace {
        t.clear_taken();
    }
    s.next = initial;
    if s.solo {
        let accept = m.accepting(&s.next);
        let to = if accept { product::ACCEPT } else { 0 };
        // pan -f: an accepting initial state has the A-bit, and the counter at the number
        // of processes plus one.
        let procs = s.next.nr_pr();
        s.fair_next((accept, if accept { (procs + 1) as u8 } else { 0 }));
        if s.fair && procs > MAX_FAIR_PROCS {
            s.fair_too_many(None, procs);
        } else {
            s.visit_product(0, None, to, None, false);
        }
    } else if s.claim {
        // The claim moves first (as the initial state is, it is accepting or not).
        let accept = s.ndfs.is_some() && m.accepting(&s.next);
        let to = product::CLAIM | if accept { product::ACCEPT } else { 0 };
        // pan -f: an accepting initial state has the A-bit, and the counter at the number
        // of processes (the claim's included) plus one.
        let procs = s.next.nr_pr() + 1;
        s.fair_next((accept, if accept { (procs + 1) as u8 } else { 0 }));
        if s.fair && procs > MAX_FAIR_PROCS {
            s.fair_too_many(None, procs);
        } else {
            s.visit_product(0, None, to, None, false);
        }
    } else {
        s.visit(0, None, None, None, Target::Built);
    }
    let mut tick = 0u32;
    while !s.frames.is_empty() {
        if s.limit == Some(Limit::States) && !s.claim && s.stopped_by.is_none() && !s.halted {
            // (The time the caller takes is not the search's.)
            let paused = Instant::now();
            s.stats.elapsed = started.elapsed();
            let go_on = at_limit(&s.stats);
            started += paused.elapsed();
            match go_on {
                AtLimit::GoOn { max_states, held }
                    if max_states.is_none_or(|n| s.stats.states_stored < n) =>
                {
                    s.max_states = max_states;
                    s.limit = None;
                    if s.budget.take(held).is_err() {
                        s.out_of_memory();
                    }
                }
                _ => break,
            }
        }
        if s.limit.is_some() || s.stopped_by.is_some() || s.halted {
            break;
        }
        let fi = s.frames.len() - 1;
        let f = s.frames.get_ref(fi);
        let (replay, depth) = (f.replay, f.depth());
        if replay {
            let ev = s.rider.replay(s.m, &mut s.blocked);
            s.replayed(fi, depth, ev);
        } else {
            s.executed(fi, depth);
        }
        tick += 1;
        if tick & 0xffff == 0 {
            s.stats.elapsed = started.elapsed();
            s.stats.peak_memory_bytes = s.budget.peak();
            progress(&s.stats);
        }
        if s.rider.failed() {
            s.halted = true;
        }
    }
    s.finish(started)
}

impl<R: Rider> Search<'_, '_, R> {
    fn finish(mut self, started: Instant) -> Outcome {
        if let Some(n) = &self.ndfs {
            // pan's figures: visited is its `nstates`, stored is visited less `nShadow` (the
            // visits again, less the `nShadow--` of `Ndfs::phantom`), and where `nShadow`
            // ended at or below zero pan prints `nstates` as stored (`wrap_stats`).
            let s = &mut self.stats;
            let unshadowed = n.fair.as_ref().map_or(0, |f| f.unshadowed);
            let visited = s.states_stored + unshadowed + s.states_revisited;
            let shadow = s.states_revisited.saturating_sub(n.phantom);
            s.states_stored = visited - shadow;
            s.states_revisited = shadow;
        }
        self.stats.transitions =
            self.stats.states_stored + self.stats.states_revisited + self.stats.states_matched;
        self.stats.states_executed = self
            .stats
            .states_stored
            .saturating_sub(self.stats.states_walked + self.stats.states_pruned);
        self.m.trace_coverage(&mut self.executed);
        self.stats.elapsed = started.elapsed();
        self.stats.peak_memory_bytes = self.budget.peak();
        self.stats.store_bytes = self.store.memory();
        if self.depth_cut && self.limit.is_none() {
            self.limit = Some(Limit::Depth);
        }
        if self.halted && self.limit.is_none() {
            // The rider could not go on: the search is not complete, and the rider says why.
            self.limit = Some(Limit::Internal);
        }
        Outcome {
            stats: self.stats,
            violations: self.found.list,
            limit: self.limit,
            stopped_by: self.stopped_by,
            executed: self.executed,
            initial: self.initial,
        }
    }

    /// One step of an executed frame: the interpreter's next successor, fault or end.
    fn executed(&mut self, fi: usize, depth: u64) {
        if self.claim {
            return self.product_step(fi, depth);
        }
        self.load(fi);
        let mut c = self.frames.get_ref(fi).cursor;
        let r = loop {
            let r = self.next_of(fi, &mut c);
            if std::mem::take(&mut c.failed_offer) {
                // A rendezvous offer nobody took still reached the level below.
                self.reach(depth + 1);
                if self.grouped && !c.is_grouped() {
                    self.implicit_group(fi, c.group_of_offer());
                }
                self.emit(&Event::Offer, &[]);
            }
            if self.grouped
                && !c.is_grouped()
                && matches!(r, Next::Succ(_) | Next::Fault(_) | Next::Report(_))
            {
                self.implicit_group(fi, c.group_of_last());
            }
            // A group begins: executed here and now, skipped, or replayed by the rider.
            let Next::Group(g) = r else { break r };
            match self.group(fi, g) {
                GroupPlan::Execute => {}
                GroupPlan::Skip => c.skip_process(),
                GroupPlan::Replay { .. } => {
                    let f = self.frames.get_mut(fi);
                    f.cursor = c;
                    f.replay = true;
                    return;
                }
            }
        };
        self.frames.get_mut(fi).cursor = c;
        match r {
            Next::Succ(it) => {
                let step = self.took(&it);
                let first = self.cur.nr_pr();
                if self.next.nr_pr() > first {
                    self.flush_group();
                    self.rider.created(self.m, &self.next, first);
                }
                let d = depth + if it.rv.is_some() { 2 } else { 1 };
                if !it.atomic {
                    self.maybe_look_ahead(fi, c);
                }
                self.visit(
                    d,
                    it.atomic.then(|| it.mover()),
                    Some(step),
                    it.flag,
                    Target::Built,
                );
            }
            Next::Fault(f) => self.step_failed(&f, depth),
            Next::Report(f) => self.reported(&f),
            Next::Done => self.exhausted(fi),
            // The loop above takes every group.
            Next::Group(_) => self.halted = true,
        }
    }

    /// Frame `fi`'s next successor from its cursor `c`: the one built ahead when there is
    /// one, else the interpreter's.
    #[inline]
    pub(super) fn next_of(&mut self, fi: usize, c: &mut Cursor) -> Next {
        match self.ahead.take() {
            Some(a) if a.fi == fi => {
                *c = a.cursor;
                std::mem::swap(&mut self.next, &mut self.ahead_st);
                a.r
            }
            other => {
                self.ahead = other;
                self.m.next(&self.cur, c, &mut self.next, &mut self.tmp)
            }
        }
    }

    /// Builds frame `fi`'s next successor ahead (its cursor `c`) when the table is large
    /// enough for that to pay (see `look_ahead`); the successor in `next` is about to be
    /// looked up.
    #[inline]
    pub(super) fn maybe_look_ahead(&mut self, fi: usize, c: Cursor) {
        if self.lookahead && self.store.table_bytes() >= self.opts.look_ahead_from {
            self.look_ahead(fi, c);
        }
    }

    /// Builds frame `fi`'s successor after the one in `next` (its cursor `c`), and starts
    /// fetching both's table slots: the lookup of the one in `next` then finds its slot in
    /// the cache, and so does the next one's, one visit later.
    fn look_ahead(&mut self, fi: usize, mut c: Cursor) {
        // (Both slots are asked for even when the one in `next` was asked for when it was
        // built ahead: measured, the second request is what makes the lookup find it.)
        self.store.prefetch(&self.next.v[self.hidden..]);
        let st = &mut self.ahead_st;
        let r = self.m.next(&self.cur, &mut c, st, &mut self.tmp);
        if matches!(r, Next::Succ(ref it) if !it.atomic) {
            self.store.prefetch(&st.v[self.hidden..]);
        }
        self.ahead = Some(Ahead { fi, cursor: c, r });
    }

    /// The executed frame `fi` begins process `g`'s group of moves (None: the first pass
    /// is over): the rider says whether they are executed, replayed or none, and the
    /// group's marker is told (a replayed one now, an executed one with its first event).
    fn group(&mut self, fi: usize, g: Option<u8>) -> GroupPlan {
        let marker = |pid, foot, rv, at| Event::Group { pid, foot, rv, at };
        let Some(pid) = g else {
            self.pending = Some(None);
            return GroupPlan::Execute;
        };
        let id = self.frames.get_ref(fi).id;
        let plan = self.rider.group(self.m, id, &self.cur, pid);
        match plan {
            GroupPlan::Execute => self.pending = Some(Some(pid)),
            GroupPlan::Skip => self.pending = None,
            GroupPlan::Replay { foot, rv } => {
                self.pending = None;
                self.rider
                    .event(self.m, &marker(Some(pid), foot, rv, NONE), &[]);
            }
        }
        plan
    }

    /// In a frame whose cursor does not announce its groups, the group of the event about
    /// to be told (None: not a stored state's first or second pass): its marker goes
    /// first when it is not the group of the event before.
    #[inline]
    fn implicit_group(&mut self, fi: usize, g: Option<Option<u8>>) {
        let Some(g) = g else {
            return;
        };
        let key = g.map_or(TAIL, u16::from);
        let f = self.frames.get_mut(fi);
        if f.group != key {
            f.group = key;
            self.pending = Some(g);
        }
    }

    /// Tells the rider the marker of the group begun last, before its first event (the
    /// executed frame's state is the loaded one until then).
    #[inline]
    fn flush_group(&mut self) {
        if let Some(g) = self.pending.take() {
            let at = g.map_or(NONE, |p| self.m.loc_id(&self.cur, p).0);
            let ev = Event::Group {
                pid: g,
                foot: NONE,
                rv: false,
                at,
            };
            self.rider.event(self.m, &ev, &[]);
        }
    }

    /// Tells the rider an event, after the marker of its group. (The end of the first pass
    /// need not be told when the state's end follows it.)
    #[inline]
    fn emit(&mut self, ev: &Event, blocked: &[Blocked]) {
        if self.pending.is_some() {
            match (ev, self.pending) {
                (Event::End(_), Some(None)) => self.pending = None,
                _ => self.flush_group(),
            }
        }
        self.rider.event(self.m, ev, blocked);
    }

    /// A move replayed in a group of an executed frame counts as the interpreter's own.
    #[inline]
    fn count_replayed(&mut self, fi: usize) {
        let c = &mut self.frames.get_mut(fi).cursor;
        if c.is_grouped() {
            c.count_move();
        }
    }

    /// One event of a replayed frame: what the executed frame did, without executing.
    fn replayed(&mut self, fi: usize, depth: u64, ev: Event) {
        match ev {
            Event::Offer => {
                self.reach(depth + 1);
                self.emit(&Event::Offer, &[]);
            }
            Event::Step { step, flag, to } => {
                self.count_replayed(fi);
                self.mark(step);
                if let Some(flag) = flag {
                    self.report_flag(flag, step);
                }
                let d = depth + if step.rv.is_some() { 2 } else { 1 };
                let atomic = matches!(to, To::Atomic | To::Repeat)
                    .then(|| step.rv.map_or(step.pid, |(q, _)| q));
                self.visit(d, atomic, Some(step), flag, Target::Replayed(to));
            }
            Event::Fault {
                step,
                kind,
                executed,
                flag,
            } => {
                if executed {
                    self.count_replayed(fi);
                }
                self.recorded_fault(depth, step, kind, executed, flag)
            }
            Event::End(End::Group) => {
                // The replayed group is over: the frame executes the next process.
                let f = self.frames.get_mut(fi);
                f.replay = false;
                f.cursor.skip_process();
            }
            // A marker of the replayed expansion, for a record written afresh.
            Event::Group { .. } => self.emit(&ev, &[]),
            Event::End(End::Leave) => {
                self.emit(&ev, &[]);
                self.pop()
            }
            Event::End(End::Invalid) => {
                let blocked = std::mem::take(&mut self.blocked);
                self.emit(&ev, &blocked);
                self.report_end(&blocked);
                self.blocked = blocked;
                self.pop();
            }
            Event::End(End::Stored(key)) => {
                let anchor = self.frames.get_ref(fi).anchor;
                match self.identify_key(key) {
                    Ident::Known(id) => {
                        self.emit(&Event::End(End::Stored(id)), &[]);
                        self.matched(id, (anchor != NONE).then_some(anchor));
                        self.pop();
                    }
                    Ident::New { id, .. } => {
                        self.emit(&Event::End(End::Stored(id)), &[]);
                        self.store_blocked(fi, id, NONE, Some(key), false)
                    }
                }
            }
        }
    }

    fn out_of_memory(&mut self) {
        self.limit = Some(Limit::Memory);
    }

    /// A recorded fault of a step from a state at `depth` (the caller counts the step as a
    /// move when it `executed`): an executed rendezvous had reached the level below, and the
    /// fault is reported as `fault_of` reports a replayed one.
    pub(super) fn recorded_fault(
        &mut self,
        depth: u64,
        step: TrailStep,
        kind: ViolationKind,
        executed: bool,
        flag: Option<Flag>,
    ) {
        if executed && step.rv.is_some() {
            self.reach(depth + 1);
        }
        self.fault_of(step, kind, executed, None, flag)
    }

    /// Decodes frame `fi`'s state into `cur` unless it is there already or kept.
    fn load(&mut self, fi: usize) {
        if self.loaded == fi {
            return;
        }
        let k = fi % KEPT;
        if self.kept_by[k] == fi {
            std::mem::swap(&mut self.cur, &mut self.kept[k]);
            self.kept_by[k] = usize::MAX;
            self.loaded = fi;
            return;
        }
        let f = self.frames.get_ref(fi);
        let own = self.path.get(f.at, f.len as usize);
        self.cur.v.clear();
        self.cur.v.extend_from_slice(own);
        if f.sid != NONE {
            self.cur.v.extend_from_slice(self.store.get(f.sid));
        }
        self.cur.rescan(&self.m.layout);
        self.loaded = fi;
    }

    /// The steps from the initial state to the frame on top, then `last`.
    fn trail(&self, last: Option<TrailStep>) -> Vec<TrailStep> {
        let mut t = Vec::with_capacity(self.frames.len() + 1);
        t.extend(self.frames.iter().filter_map(|f| f.step()));
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

    /// Visits the successor reached at `depth` by `step` (`atomic` names the process that
    /// keeps exclusive control): the state in `self.next` when the interpreter built it,
    /// else what a replayed event says of it.
    fn visit(
        &mut self,
        depth: u64,
        atomic: Option<u8>,
        step: Option<TrailStep>,
        flag: Option<Flag>,
        to: Target,
    ) {
        if !self.arrive(depth, step) {
            return;
        }
        let built = to == Target::Built;
        let anchor = self.anchor();
        if let Some(p) = atomic {
            self.stats.atomic_steps += 1;
            let hash = match to {
                Target::Built => quick_hash(&self.next.v),
                Target::Replayed(_) => 0,
            };
            let repeats = match to {
                Target::Built => self.repeats_in_atomic_run(p, hash),
                Target::Replayed(t) => t == To::Repeat,
            };
            self.tell(step, flag, if repeats { To::Repeat } else { To::Atomic });
            if repeats {
                return self.non_terminating(step, p);
            }
            self.reach(depth);
            let anchor = anchor.unwrap_or(NONE);
            if built {
                self.flush_group();
                self.rider.passed(self.m, &self.next, step);
                // Stored only if the process blocks inside the sequence (see `exhausted`).
                if self.push(NONE, NONE, depth, Some(p), anchor, step) {
                    if let Some(f) = self.frames.last_mut() {
                        f.hash = hash;
                    }
                }
            } else {
                self.push_replayed(NONE, depth, anchor, step);
            }
            return;
        }
        // Look the state up before anything else: most successors are already stored.
        let ident = match to {
            Target::Built => match self.identify_next() {
                Ok(i) => i,
                Err(OutOfMemory) => return self.out_of_memory(),
            },
            Target::Replayed(To::State(key)) => self.identify_key(key),
            Target::Replayed(_) => {
                // An atomic step without a process in control: a record that contradicts
                // itself.
                self.halted = true;
                return;
            }
        };
        match ident {
            Ident::Known(id) => {
                self.tell(step, flag, To::State(id));
                self.matched(id, anchor);
            }
            Ident::New { id, sid, key } => {
                self.tell(step, flag, To::State(id));
                self.enter(id, sid, key, depth, step, built);
            }
        }
    }

    /// The step of a successor the interpreter made: marked on the path, and the error it
    /// reported while completing (a failed assertion, say) reported.
    #[inline]
    fn took(&mut self, it: &super::succ::Succ) -> TrailStep {
        let step = it.step();
        self.mark(step);
        if let Some(flag) = it.flag {
            self.report_flag(flag, step);
        }
        step
    }

    /// A step from a state at `depth` that could not complete: a fault that ends the path.
    fn step_failed(&mut self, f: &FaultAt, depth: u64) {
        if f.rv.is_some() {
            // The receive half of a rendezvous failed: the send had reached the level
            // below, as a failed offer does.
            self.reach(depth + 1);
        }
        self.fault_at(f, true)
    }

    /// An error pan reports while the statement simply does not move (the enumeration goes
    /// on).
    fn reported(&mut self, f: &FaultAt) {
        self.fault_at(f, false)
    }

    /// `fault_of` for what the interpreter returned.
    fn fault_at(&mut self, f: &FaultAt, executed: bool) {
        let kind = fault_kind(&f.fault);
        self.fault_of(f.step(), kind, executed, Some(&f.fault), f.flag)
    }

    /// What every visit of a successor reached at `depth` by `step` begins with: a cut at
    /// the depth limit (false: the visit goes no further), and the middle of a rendezvous
    /// reached.
    #[inline]
    fn arrive(&mut self, depth: u64, step: Option<TrailStep>) -> bool {
        if let Some(max) = self.opts.max_depth {
            if depth >= max {
                // pan counts a cut at the depth limit as a match, and goes on with the rest
                // of the search (the path ends here): the search is incomplete.
                self.stats.states_matched += 1;
                self.depth_cut = true;
                return false;
            }
        }
        if step.is_some_and(|s| s.rv.is_some()) {
            // The middle of a rendezvous is a state pan explores without storing.
            self.reach(depth - 1);
        }
        true
    }

    /// A state repeats inside one atomic run of process `p` (`step` led to it).
    fn non_terminating(&mut self, step: Option<TrailStep>, p: u8) {
        let edge = step.map(|s| s.edge).unwrap_or(NONE);
        let kind = ViolationKind::NonTerminatingAtomic;
        self.rider.violation(self.m, kind, Some(edge), &[]);
        if !self.found.seen_edge(kind, edge) {
            let trail = self.trail_for(kind, step);
            self.add(Violation {
                kind,
                edge: Some(edge),
                pid: Some(p),
                message: NON_TERMINATING.into(),
                blocked: Vec::new(),
                trail,
                via: None,
                cycle: None,
                cycle_depth: None,
            });
        }
    }

    /// Tells the rider a step, its target named by search id.
    fn tell(&mut self, step: Option<TrailStep>, flag: Option<Flag>, to: To) {
        if let Some(step) = step {
            self.emit(&Event::Step { step, flag, to }, &[]);
        }
    }

    /// Stores a new state (search id `id`) reached at `depth` and pushes its frame: its
    /// vector is in `self.next` when `built`, else the rider knows it by `key`.
    fn enter(
        &mut self,
        id: u32,
        sid: u32,
        key: Option<u32>,
        depth: u64,
        step: Option<TrailStep>,
        built: bool,
    ) {
        if built && !self.build_pending() {
            return;
        }
        let (len, pan) = match (built, key) {
            (true, _) => (self.next.v.len() as u64, self.pan_vector(&self.next)),
            (false, Some(k)) => self.rider.shape(self.m, k),
            (false, None) => (0, 0),
        };
        self.stored(id, depth, len, pan);
        let visit = self
            .rider
            .stored(self.m, id, built.then_some(&self.next), key);
        let idx = self.frames.len() as u32;
        if visit == Visit::Replay {
            self.stats.states_walked += 1;
            self.push_replayed(id, depth, idx, step);
            return;
        }
        if !built {
            let Some(k) = key else {
                self.halted = true;
                return;
            };
            if !self.rider.load(self.m, k, &mut self.next) {
                self.halted = true;
                return;
            }
        }
        if key.is_some() {
            self.stats.frontier_states += 1;
        }
        if !self.push(id, sid, depth, None, idx, step) {
            return;
        }
        if visit == Visit::Partly && self.grouped {
            // Its processes' moves are asked for one by one.
            let top = self.frames.len() - 1;
            self.frames.get_mut(top).cursor = Cursor::grouped(&self.cur);
        }
        if visit == Visit::Skip {
            self.skip();
        }
    }

    /// pan's vector size of `st` in this search's build.
    fn pan_vector(&self, st: &State) -> u64 {
        match self.solo {
            true => self.m.pan_vector_acceptance(st),
            false => self.m.pan_vector(st),
        }
    }

    /// Who the state in `self.next` is.
    fn identify_next(&mut self) -> Result<Ident, OutOfMemory> {
        let next = std::mem::take(&mut self.next);
        let r = self.identify(&next);
        self.next = next;
        r
    }

    /// Who a built state is: in a replay, a state the rider knows by key is that state;
    /// every other one is looked up in the store (and stored when new).
    fn identify(&mut self, st: &State) -> Result<Ident, OutOfMemory> {
        let key = &st.v[self.hidden..];
        if !self.keyed {
            // Store ids are search ids when nothing is known by key.
            let (sid, new) = self.store.insert(key)?;
            return Ok(if new {
                Ident::New {
                    id: sid,
                    sid,
                    key: None,
                }
            } else {
                Ident::Known(sid)
            });
        }
        // A state is in the store exactly when the rider does not know it (only a failed
        // lookup stores one), so either may be asked first: the one that answered more
        // often so far (new states met again, or recorded states).
        let key_first = self.by_key > self.in_store;
        if key_first {
            if let Some(known) = self.known_by_key(st) {
                return Ok(known);
            }
        }
        let vacancy = match self.store.probe(key) {
            Ok(sid) => {
                self.in_store += 1;
                let id = match self.sids.is_empty() {
                    true => sid,
                    false => self.sids.get(sid as usize),
                };
                return Ok(Ident::Known(id));
            }
            Err(v) => v,
        };
        if !key_first {
            if let Some(known) = self.known_by_key(st) {
                return Ok(known);
            }
        }
        // (The lookup does not touch the store: the slot found free is still free.)
        let sid = self.store.insert_vacant(key, vacancy)?;
        let id = self.stats.states_stored as u32;
        if id != sid || !self.sids.is_empty() {
            if self.sids.is_empty() {
                for s in 0..sid {
                    self.sids.push(s)?;
                }
            }
            self.sids.push(id)?;
        }
        Ok(Ident::New { id, sid, key: None })
    }

    /// Who a built state is, when the rider knows it by key.
    fn known_by_key(&mut self, st: &State) -> Option<Ident> {
        let key = self.rider.lookup(self.m, st)?;
        self.by_key += 1;
        Some(self.identify_key(key))
    }

    /// Who the state the rider knows as `key` is.
    fn identify_key(&mut self, key: u32) -> Ident {
        while self.ext.len() <= key as usize {
            if self.ext.push(NONE).is_err() {
                self.out_of_memory();
                // The search stops at its limit; what this state is no longer matters.
                return Ident::Known(0);
            }
        }
        let id = self.ext.get(key as usize);
        if id != NONE {
            return Ident::Known(id);
        }
        let id = self.stats.states_stored as u32;
        *self.ext.get_mut(key as usize) = id;
        Ident::New {
            id,
            sid: NONE,
            key: Some(key),
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
    fn stored(&mut self, id: u32, depth: u64, len: u64, pan: u64) {
        debug_assert_eq!(id as u64, self.stats.states_stored);
        self.stats.states_stored += 1;
        self.reach(depth);
        let vec_len = len.saturating_sub(self.hidden as u64);
        self.stats.vector_bytes = self.stats.vector_bytes.max(vec_len);
        self.stats.state_vector_bytes = self.stats.state_vector_bytes.max(pan);
        if self.tarjan.push(id).is_err() {
            self.out_of_memory();
        }
        if self
            .max_states
            .is_some_and(|m| self.stats.states_stored >= m)
        {
            self.limit = Some(Limit::States);
        }
    }

    /// Pushes a frame for the state in `self.next`, which becomes the loaded state. The
    /// path keeps only the hidden globals of a frame whose stored part is in the store
    /// (`sid`), else the whole vector. Returns false when memory ran out (the search then
    /// stops).
    fn push(
        &mut self,
        id: u32,
        sid: u32,
        depth: u64,
        only: Option<u8>,
        anchor: u32,
        step: Option<TrailStep>,
    ) -> bool {
        if !self.build_pending() {
            return false;
        }
        let own = if sid == NONE {
            &self.next.v[..]
        } else {
            &self.next.v[..self.hidden]
        };
        let len = own.len() as u32;
        let Ok(at) = self.path.push(own) else {
            self.out_of_memory();
            return false;
        };
        let tau = self.next_tau;
        let cursor = if self.claim {
            let c = Cursor::product(&self.next, only, tau & product::TIMEOUT != 0);
            match self.fair {
                true => {
                    self.fair_push(self.frames.len());
                    c.fair()
                }
                false => c,
            }
        } else {
            Cursor::new(&self.next, only)
        };
        let frame = Frame {
            id,
            sid,
            at,
            len,
            depth: narrow_depth(depth),
            cursor,
            replay: false,
            lowlink: id,
            anchor,
            group: NO_GROUP,
            step: StepIn::new(step),
            tau,
            blocked_atomic: false,
            slot: self.next_slot,
            sys: 0,
            hash: match sid {
                NONE => 0,
                _ => quick_hash(&self.next.v),
            },
        };
        if self.frames.push(frame).is_err() {
            self.path.truncate(at);
            self.out_of_memory();
            return false;
        }
        if self.rider.out_of_memory() {
            self.out_of_memory();
        }
        // The parent's state, decoded, is kept for when the child is left.
        let parent = self.frames.len().wrapping_sub(2);
        if self.loaded == parent {
            let k = parent % KEPT;
            std::mem::swap(&mut self.cur, &mut self.kept[k]);
            self.kept_by[k] = parent;
        }
        std::mem::swap(&mut self.cur, &mut self.next);
        self.loaded = self.frames.len() - 1;
        true
    }

    /// Builds `next` if it is still to be built (`next_pending`); false (the search halts)
    /// when the rider cannot.
    fn build_pending(&mut self) -> bool {
        let Some((slot, q)) = self.next_pending.take() else {
            return true;
        };
        let mut next = std::mem::take(&mut self.next);
        let built = self.rider.build_product(self.m, slot, q, &mut next);
        self.next = next;
        if !built {
            self.halted = true;
        }
        built
    }

    /// The key of the product state of recorded state `slot` with the claim at `q` (with a
    /// recorded system graph).
    fn product_key(&self, slot: u32, q: u32) -> u32 {
        let nq = self.sys_graph.unwrap_or(1);
        slot.saturating_mul(nq).saturating_add(q)
    }

    /// The key of the product state `st`, whose system part is recorded state `slot`.
    fn key_of(&self, st: &State, slot: u32) -> u32 {
        let q = self.m.claim.as_ref().map_or(0, |c| c.loc(st));
        self.product_key(slot, q)
    }

    /// Who the product state known by `key` is (with a recorded system graph, states are
    /// known by key alone, none is in the store).
    fn ident_keyed(&mut self, key: u32) -> Ident {
        match self.identify_key(key) {
            Ident::New { id, sid, .. } => Ident::New { id, sid, key: None },
            known => known,
        }
    }

    /// Who the state of frame `fi`, in `cur`, is.
    fn ident_cur(&mut self, fi: usize) -> Result<Ident, OutOfMemory> {
        if self.sys_graph.is_some() {
            let key = self.key_of(&self.cur, self.frames.get_ref(fi).slot);
            return Ok(self.ident_keyed(key));
        }
        let cur = std::mem::take(&mut self.cur);
        let ident = self.identify(&cur);
        self.cur = cur;
        ident
    }

    /// Pushes a state inside a replayed atomic run of a product's system turn: no vector
    /// (its moves come from the turn's record), the product bits in `next_tau`.
    fn push_inside(&mut self, depth: u64, anchor: u32, step: Option<TrailStep>) {
        let at = self.path.end();
        let frame = Frame {
            id: NONE,
            sid: NONE,
            at,
            len: 0,
            depth: narrow_depth(depth),
            cursor: Cursor::idle(),
            replay: false,
            lowlink: NONE,
            anchor,
            group: NO_GROUP,
            step: StepIn::new(step),
            tau: self.next_tau,
            blocked_atomic: false,
            slot: NONE,
            sys: SYS_NOVEC,
            hash: 0,
        };
        if self.fair {
            self.fair_push(self.frames.len());
            // (The process that keeps atomic control: a rendezvous's receiver, else the
            // mover.)
            let only = step.map_or(0, |s| s.rv.map_or(s.pid, |(q, _)| q));
            self.fair_inside(self.frames.len(), only);
        }
        if self.frames.push(frame).is_err() {
            return self.out_of_memory();
        }
        if self.loaded == self.frames.len() - 1 {
            self.loaded = usize::MAX;
        }
    }

    /// Pushes a replayed frame: no vector, its events come from the rider.
    fn push_replayed(&mut self, id: u32, depth: u64, anchor: u32, step: Option<TrailStep>) {
        // Nothing of it goes on the path: it starts where the path ends.
        let at = self.path.end();
        let frame = Frame {
            id,
            sid: NONE,
            at,
            len: 0,
            depth: narrow_depth(depth),
            cursor: Cursor::idle(),
            replay: true,
            lowlink: id,
            anchor,
            group: NO_GROUP,
            step: StepIn::new(step),
            tau: 0,
            blocked_atomic: false,
            slot: NONE,
            sys: 0,
            hash: 0,
        };
        if self.frames.push(frame).is_err() {
            return self.out_of_memory();
        }
        if self.rider.out_of_memory() {
            self.out_of_memory();
        }
    }

    /// The executed frame on top has no successors left.
    fn exhausted(&mut self, fi: usize) {
        let f = self.frames.get(fi);
        if f.cursor.moved == 0 {
            if f.id == NONE {
                // The process blocked inside its atomic sequence: the state is stored and
                // every process may move from it.
                return self.blocked_in_atomic(fi);
            }
            if self.opts.end_states {
                let mut blocked = std::mem::take(&mut self.blocked);
                if property::invalid_end(self.m, &self.cur, self.opts, &mut blocked) {
                    self.emit(&Event::End(End::Invalid), &blocked);
                    self.report_end(&blocked);
                    self.blocked = blocked;
                    self.pop();
                    return;
                }
                self.blocked = blocked;
            }
        }
        self.emit(&Event::End(End::Leave), &[]);
        self.pop();
    }

    /// The atomic frame `fi` blocked, its state (built) in `cur`: it is a state stored
    /// before, or stored now.
    fn blocked_in_atomic(&mut self, fi: usize) {
        let anchor = self.frames.get_ref(fi).anchor;
        let ident = match self.ident_cur(fi) {
            Ok(i) => i,
            Err(OutOfMemory) => return self.out_of_memory(),
        };
        match ident {
            Ident::Known(id) => {
                self.emit(&Event::End(End::Stored(id)), &[]);
                self.matched(id, (anchor != NONE).then_some(anchor));
                self.pop();
            }
            Ident::New { id, sid, key } => {
                self.emit(&Event::End(End::Stored(id)), &[]);
                self.store_blocked(fi, id, sid, key, true);
            }
        }
    }

    /// The atomic frame `fi` blocked: its state is stored as `id` (`built`: its vector is
    /// in `cur`), and the frame becomes that state's, from which every process may move.
    fn store_blocked(&mut self, fi: usize, id: u32, sid: u32, key: Option<u32>, built: bool) {
        self.forget_kept(fi);
        let f = self.frames.get(fi);
        let (len, pan) = match (built, key) {
            (true, _) => (self.cur.v.len() as u64, self.pan_vector(&self.cur)),
            (false, Some(k)) => self.rider.shape(self.m, k),
            (false, None) => (0, 0),
        };
        self.stored(id, f.depth(), len, pan);
        let visit = self
            .rider
            .stored(self.m, id, built.then_some(&self.cur), key);
        self.path.truncate(f.at);
        let fr = self.frames.get_mut(fi);
        fr.id = id;
        fr.lowlink = id;
        fr.anchor = fi as u32;
        fr.blocked_atomic = true;
        if visit == Visit::Replay {
            self.stats.states_walked += 1;
            let at = self.path.end();
            let fr = self.frames.get_mut(fi);
            fr.sid = NONE;
            fr.at = at;
            fr.len = 0;
            fr.replay = true;
            fr.cursor = Cursor::idle();
            if self.loaded == fi {
                self.loaded = usize::MAX;
            }
            return;
        }
        if !built {
            let loaded = match key {
                Some(k) => self.rider.load(self.m, k, &mut self.cur),
                None => false,
            };
            if !loaded {
                self.halted = true;
                return;
            }
        }
        if key.is_some() {
            self.stats.frontier_states += 1;
        }
        // The path keeps what the store does not.
        let own = if sid == NONE {
            &self.cur.v[..]
        } else {
            &self.cur.v[..self.hidden]
        };
        let Ok(at) = self.path.push(own) else {
            return self.out_of_memory();
        };
        let len = own.len() as u32;
        let fr = self.frames.get_mut(fi);
        fr.sid = sid;
        fr.at = at;
        fr.len = len;
        fr.replay = false;
        fr.group = NO_GROUP;
        fr.cursor = if visit == Visit::Partly && self.grouped {
            Cursor::grouped(&self.cur)
        } else if self.solo && self.fair {
            // Without a claim the state is the system's turn, whose processes weak
            // fairness follows one by one.
            Cursor::new(&self.cur, None).fair()
        } else {
            Cursor::new(&self.cur, None)
        };
        self.loaded = fi;
        if visit == Visit::Skip {
            self.skip();
        }
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
                    let blocked: Vec<Blocked> = tuple
                        .iter()
                        .map(|&(t, l)| Blocked {
                            // (No process yet: the pid is unknown.)
                            pid: crate::explore::Pid::MAX,
                            proc: t as usize,
                            loc: crate::explore::LocIndex(l),
                        })
                        .collect();
                    if self.found.seen_end(&blocked) {
                        continue;
                    }
                    (property::end_kind(self.m, &blocked), None, blocked)
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
                cycle: None,
                cycle_depth: None,
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
        let top = self.frames.len().checked_sub(1)?;
        Some(self.frames.get_ref(top).anchor).filter(|&a| a != NONE)
    }

    /// Inside one atomic run (the unstored frames above the nearest stored one, and that
    /// one), does the state in `self.next` already occur on the path?
    /// Whether the state in `next`, reached inside the atomic run of process `p`, repeats a
    /// state of the run. A state where `p` blocked inside its atomic sequence is no repeat:
    /// `p` blocks there again (pan stores the state then, and meets it again).
    fn repeats_in_atomic_run(&self, p: u8, hash: u32) -> bool {
        let me = &self.next.v[..];
        for fi in (0..self.frames.len()).rev() {
            let f = self.frames.get_ref(fi);
            let same = if f.hash != 0 && f.hash != hash {
                false
            } else {
                let own = self.path.get(f.at, f.len as usize);
                if f.sid == NONE {
                    own == me
                } else {
                    let stored = self.store.get(f.sid);
                    me.len() == own.len() + stored.len()
                        && &me[..own.len()] == own
                        && &me[own.len()..] == stored
                }
            };
            if same {
                let holder = f.step().map(|s| s.rv.map_or(s.pid, |(q, _)| q));
                if !((f.blocked_atomic && holder == Some(p)) || self.blocks_at(p)) {
                    return true;
                }
            }
            // A stored frame, or a visit again of a stored state (the nested search's, and
            // with weak fairness the first search's), starts the run.
            if f.id != NONE || f.lowlink != NONE {
                break;
            }
        }
        false
    }

    /// Whether process `p` blocks in the state in `next` without a timeout: its atomic run
    /// stops there, and pan stores the state and meets it again (another process's block
    /// stored it first).
    fn blocks_at(&self, p: u8) -> bool {
        p != crate::explore::claim::CLAIM_PID
            && self.m.can_move(&self.next, p as Pid, false, 0) == Ok(false)
    }

    /// Reports what a completed step flagged (a failed assertion, missing message fields).
    fn report_flag(&mut self, flag: Flag, step: TrailStep) {
        if flag == Flag::PollThenAssertion {
            for f in flag.parts() {
                self.report_flag(f, step);
            }
            return;
        }
        if flag == Flag::Assertion && !self.opts.assertions {
            return;
        }
        let kind = flag_kind(flag);
        let (pid, edge) = flag_at(flag, &step);
        self.rider.violation(self.m, kind, Some(edge), &[]);
        if self.found.seen_edge(kind, edge) {
            return;
        }
        let trail = self.trail_for(kind, Some(step));
        let message = flag_message(self.m, flag, edge);
        self.add(Violation {
            kind,
            edge: Some(edge),
            pid: Some(pid),
            message,
            blocked: Vec::new(),
            trail,
            via: None,
            cycle: None,
            cycle_depth: None,
        });
    }

    fn mark(&mut self, step: TrailStep) {
        if let Some(x) = self.executed.get_mut(step.edge as usize) {
            *x = true;
        }
        if let Some((_, r)) = step.rv {
            if let Some(x) = self.executed.get_mut(r as usize) {
                *x = true;
            }
        }
    }

    /// A step that could not complete (`executed`), or an error reported where a statement
    /// did not move, of kind `kind`, after `flag` (an error the step reported before it):
    /// reported once per (kind, edge); a fatal one ends the whole search, as in pan. A
    /// replayed fault (`f` None) gets the message the interpreter gives when its step is
    /// taken again at the end of the path.
    fn fault_of(
        &mut self,
        step: TrailStep,
        kind: ViolationKind,
        executed: bool,
        f: Option<&Fault>,
        flag: Option<Flag>,
    ) {
        let ev = Event::Fault {
            step,
            kind,
            executed,
            flag,
        };
        self.emit(&ev, &[]);
        if executed {
            self.mark(step);
        }
        if let Some(flag) = flag {
            self.report_flag(flag, step);
        }
        if kind == ViolationKind::IndexOutOfRange && !self.opts.assertions {
            return;
        }
        let (pid, edge) = property::fault_at(&step);
        self.rider.violation(self.m, kind, Some(edge), &[]);
        if kind.is_fatal() {
            self.stopped_by = Some(kind);
        }
        if self.found.seen_edge(kind, edge) {
            return;
        }
        let trail = self.trail_for(kind, Some(step));
        let message = match f {
            Some(f) => fault_message_at(self.m, f, edge),
            None => {
                let path = self.trail(None);
                self.m.fault_after(&self.initial, &path, &step).map_or_else(
                    || kind.as_str().replace('-', " "),
                    |f| fault_message_at(self.m, &f, edge),
                )
            }
        };
        self.add(Violation {
            kind,
            edge: Some(edge),
            pid: Some(pid),
            message,
            blocked: Vec::new(),
            trail,
            via: None,
            cycle: None,
            cycle_depth: None,
        });
    }

    fn add(&mut self, v: Violation) {
        // Every distinct violation is kept: its bytes count against the memory limit.
        let bytes = std::mem::size_of::<Violation>()
            + v.message.len()
            + v.blocked.len() * std::mem::size_of::<Blocked>()
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

    /// The stored state on top has no successors and is an invalid end state (`property`'s
    /// definition): `blocked` holds the processes that are not at a valid end.
    fn report_end(&mut self, blocked: &[Blocked]) {
        let kind = property::end_kind(self.m, blocked);
        self.rider.violation(self.m, kind, None, blocked);
        if !self.found.seen_end(blocked) {
            let trail = self.trail_for(kind, None);
            self.add(Violation {
                kind,
                edge: None,
                pid: None,
                message: property::end_message(self.m, blocked),
                blocked: blocked.to_vec(),
                trail,
                via: None,
                cycle: None,
                cycle_depth: None,
            });
        }
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

    /// Frame `fi`'s state is no longer the one kept for it (the frame is left or changed).
    fn forget_kept(&mut self, fi: usize) {
        let k = fi % KEPT;
        if self.kept_by[k] == fi {
            self.kept_by[k] = usize::MAX;
        }
    }

    fn pop(&mut self) {
        let Some(f) = self.frames.pop() else {
            return;
        };
        if f.sys & SYS_OPEN != 0 {
            self.rider.close_system();
            self.sys_q.pop();
        }
        if let Some(a) = &mut self.acceptors {
            a.left(self.frames.len());
        }
        self.path.truncate(f.at);
        if self.loaded >= self.frames.len() {
            self.loaded = usize::MAX;
        }
        self.forget_kept(self.frames.len());
        if self
            .ahead
            .as_ref()
            .is_some_and(|a| a.fi >= self.frames.len())
        {
            self.ahead = None;
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
        Fault::Index(_) => ViolationKind::IndexOutOfRange,
        Fault::DivZero => ViolationKind::DivisionByZero,
        Fault::TooManyProcs => ViolationKind::TooManyProcesses,
        Fault::TooManyChans => ViolationKind::TooManyChannels,
        Fault::DStepBlocked => ViolationKind::DStepBlocked,
        Fault::NonTerminatingAtomic => ViolationKind::NonTerminatingAtomic,
        Fault::BadChan => ViolationKind::UninitialisedChannel,
        Fault::RecvFields => ViolationKind::MessageFields,
        Fault::SendTooMany => ViolationKind::SendTooManyValues,
        Fault::RecvTooMany => ViolationKind::ReceiveTooManyFields,
        Fault::PollRendezvous => ViolationKind::PollRendezvous,
        Fault::CopyRendezvous => ViolationKind::CopyReceiveRendezvous,
        Fault::RendezvousInDStep => ViolationKind::RendezvousInDStep,
        Fault::Priority(_) => ViolationKind::PriorityOutOfRange,
        Fault::EnabledSelf => ViolationKind::EnabledSelf,
        Fault::DProctypeChoice => ViolationKind::DProctypeNondeterminism,
        Fault::TraceMismatch => ViolationKind::TraceMismatch,
        Fault::NotraceMatched => ViolationKind::NotraceMatched,
        Fault::TraceNondeterminism => ViolationKind::TraceNondeterminism,
        Fault::Unsupported(_) => ViolationKind::Unsupported,
        Fault::Flagged { then, .. } => fault_kind(then),
    }
}

/// The message of a non-terminating atomic sequence.
pub const NON_TERMINATING: &str =
    "non-terminating atomic sequence: a state repeats inside one atomic run";

/// The message of what a completed step flagged.
pub fn flag_message(m: &Machine, flag: Flag, edge: EdgeNo) -> String {
    let e = m.edge(edge);
    match flag {
        Flag::Assertion => match &e.stmt {
            // The step is the whole d_step: name its assertion when it has one.
            crate::program::LStmt::DStep(d) => {
                let asserts: Vec<&str> = d
                    .auto
                    .locations
                    .iter()
                    .flat_map(|l| &l.edges)
                    .filter(|x| matches!(x.stmt, crate::program::LStmt::Assert(_)))
                    .map(|x| x.text.as_str())
                    .collect();
                match asserts.as_slice() {
                    [one] => format!(
                        "assertion violated {}",
                        one.strip_prefix("assert").unwrap_or(one)
                    ),
                    _ => "assertion violated in a d_step".into(),
                }
            }
            _ => format!(
                "assertion violated {}",
                e.text.strip_prefix("assert").unwrap_or(&e.text)
            ),
        },
        Flag::SendFields => "too few parameters in send: the message has more fields".into(),
        Flag::RecvFields => "missing parameters in receive: the message has more fields".into(),
        Flag::SendTooMany => {
            "too many parameters in send: the channel has fewer fields (the rest are dropped)"
                .into()
        }
        Flag::PollRendezvous | Flag::PollThenAssertion => fault_message(&Fault::PollRendezvous),
        Flag::DProctype => fault_message(&Fault::DProctypeChoice),
        Flag::TraceMismatch { .. } => trace_message(m, edge, &Fault::TraceMismatch),
        Flag::NotraceMatched { .. } => trace_message(m, edge, &Fault::NotraceMatched),
    }
}

/// The message of a trace's error at the channel event of `edge`'s statement, with pan's
/// words.
fn trace_message(m: &Machine, edge: EdgeNo, f: &Fault) -> String {
    let text = &m.edge(edge).text;
    match f {
        Fault::NotraceMatched => {
            format!("notrace assertion violated: {text} completes the notrace (all events matched)")
        }
        Fault::TraceNondeterminism => {
            format!("{text} matches two transitions of the trace (non-determinism in event-trace)")
        }
        _ => format!(
            "event trace error: {text} matches no transition of the trace (no matching event)"
        ),
    }
}

/// The message of a fault in the step of `edge` (a trace's error names its event).
pub fn fault_message_at(m: &Machine, f: &Fault, edge: EdgeNo) -> String {
    let f = f.last();
    match f {
        Fault::TraceMismatch | Fault::NotraceMatched | Fault::TraceNondeterminism => {
            trace_message(m, edge, f)
        }
        _ => fault_message(f),
    }
}

/// The kind of violation a completed step reported.
pub fn flag_kind(f: Flag) -> ViolationKind {
    match f {
        // (The first of a pair names it where one kind is asked: see `Flag::parts`.)
        Flag::Assertion => ViolationKind::Assertion,
        Flag::PollThenAssertion => ViolationKind::PollRendezvous,
        Flag::SendFields | Flag::RecvFields => ViolationKind::MessageFields,
        Flag::SendTooMany => ViolationKind::SendTooManyValues,
        Flag::PollRendezvous => ViolationKind::PollRendezvous,
        Flag::DProctype => ViolationKind::DProctypeNondeterminism,
        Flag::TraceMismatch { .. } => ViolationKind::TraceMismatch,
        Flag::NotraceMatched { .. } => ViolationKind::NotraceMatched,
    }
}

/// Where a completed step's error is: the process and edge whose statement it is (the
/// receive's, for a trace's error at a rendezvous's receive).
pub fn flag_at(flag: Flag, step: &TrailStep) -> (u8, EdgeNo) {
    match (flag, step.rv) {
        (Flag::TraceMismatch { rv: true } | Flag::NotraceMatched { rv: true }, Some(r)) => r,
        _ => (step.pid, step.edge),
    }
}

pub fn fault_message(f: &Fault) -> String {
    match f {
        Fault::Index(i) => {
            format!(
                "array index out of range: {}[{}] (size {})",
                i.var, i.index, i.len
            )
        }
        Fault::DivZero => "division by zero".into(),
        Fault::TooManyProcs => "too many processes (255 is the most)".into(),
        Fault::TooManyChans => "too many channels (255 is the most)".into(),
        Fault::DStepBlocked => "d_step blocks once started (pan: block in d_step seq)".into(),
        Fault::NonTerminatingAtomic => "non-terminating d_step".into(),
        Fault::BadChan => "use of an uninitialised channel".into(),
        Fault::RecvFields => "wrong number of message fields in receive (constants only)".into(),
        Fault::SendTooMany => "send with more values than the channel has fields".into(),
        Fault::RecvTooMany => {
            "too many fields in receive: it reads past the last field of the message".into()
        }
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
        Fault::TraceMismatch => {
            "event trace error: the trace has no transition for this send: no matching event".into()
        }
        Fault::NotraceMatched => {
            "notrace assertion violated: this send completes the notrace: all events matched".into()
        }
        Fault::TraceNondeterminism => {
            "non-determinism in event-trace: two transitions of the trace match this event".into()
        }
        Fault::Unsupported(what) => format!("not supported: {what}"),
        Fault::Flagged { then, .. } => fault_message(then),
    }
}
#[cfg(test)]
mod tests {
    /// A deep search holds a frame per level (2.3 million on philosophers N=6): what it costs
    /// is most of such a search's memory, and should not grow unnoticed.
    #[test]
    fn a_frame_stays_within_100_bytes() {
        assert_eq!(std::mem::size_of::<super::Cursor>(), 40);
        assert_eq!(std::mem::size_of::<super::StepIn>(), 12);
        assert_eq!(std::mem::size_of::<super::Frame>(), 100);
    }
}
