//! The rider of a run that writes a record (DESIGN.md 5.1, 5.2, 5.4): in a pruning run it
//! says which stored states are skipped, in a replaying run it hands the search the recorded
//! expansions of the states whose footprint the change misses (`Replay`); and it tells the
//! book (`book`: the reachable sets and the state graph) what the search did, inline or,
//! through `book_pipe`, to a worker thread, so that the search's thread does only what the
//! search waits for.

use crate::explore::Blocked;
use crate::explore::Fingerprint;
use crate::explore::Pid;
use std::sync::Arc;

use crate::explore::budget::{Budget, Held};
use crate::explore::event::Event;
use crate::explore::machine::{EdgeNo, Machine};
use crate::explore::property::Key;
use crate::explore::search::{Rider, Visit};
use crate::explore::state::State;
use crate::explore::trail::TrailStep;
use crate::explore::ViolationKind;

use crate::rmc::record::elements::Element;
use crate::rmc::record::graph::Graph;
use crate::rmc::record::graph_build::GraphBuilder;
use crate::rmc::run::book::{Book, Keep};
use crate::rmc::run::book_pipe::BookPipe;
use crate::rmc::run::replay::Replay;

/// What a pruning run knows of the old version.
pub struct Prune {
    /// The recorded states by fingerprint (shared with the book, which may be on a worker).
    pub known: Arc<Known>,
    /// Each recorded set as elements (shared with the book too), and whether it meets the
    /// dangerous locations.
    pub sets: Arc<Vec<Vec<Element>>>,
    pub meets_danger: Vec<bool>,
    /// The old state graph, whose pruned states' events the new one borrows.
    pub graph: Option<Graph>,
    /// When the new layout only adds variables: how a state projects onto the record's
    /// layout, and that layout's hash (states are looked up by the projection's
    /// fingerprint).
    pub project: Option<(crate::rmc::diff::extension::Extension, u64)>,
    /// Across such a layout change: the old state graph (its vectors are the old layout's,
    /// so the new graph cannot borrow them), read when the record is written to carry the
    /// pruned states' recorded parts of the state space into the new layout.
    pub across: Option<Graph>,
    /// The recorded states whose set misses the dangerous locations: those a stored state
    /// is looked up among on the search's thread (where few are, a small index).
    pub prunable: Prunable,
    /// After this many stored states in a row that are not prunable, the search's thread
    /// stops looking states up (see `Lookups`).
    pub give_up_after: u32,
}

impl Prune {
    /// Heap bytes held beside the record's own.
    pub fn memory(&self) -> u64 {
        self.known.memory()
            + self.prunable.memory()
            + self.sets.held()
            + self.sets.iter().map(|s| s.held()).sum::<u64>()
            + self.meets_danger.held()
            + self.graph.as_ref().map_or(0, |g| g.memory())
            + self.across.as_ref().map_or(0, |g| g.memory())
    }
}

/// The fingerprints of the prunable recorded states, and each one's position in the
/// record's list.
pub struct Prunable {
    fingerprints: Vec<Fingerprint>,
    index: crate::rmc::record::fpindex::FpIndex,
    at: Vec<u32>,
}

impl Prunable {
    pub fn new(known: &Known, meets_danger: &[bool]) -> Prunable {
        let (mut fingerprints, mut at) = (Vec::new(), Vec::new());
        for (i, (&fp, &s)) in known.fingerprints.iter().zip(&known.set_of).enumerate() {
            if !meets_danger.get(s as usize).copied().unwrap_or(true) {
                fingerprints.push(fp);
                at.push(i as u32);
            }
        }
        Prunable {
            index: crate::rmc::record::fpindex::FpIndex::new(&fingerprints),
            fingerprints,
            at,
        }
    }

    /// The record position of the prunable state with fingerprint `fp`.
    fn find(&self, fp: Fingerprint) -> Option<usize> {
        self.index
            .find(&self.fingerprints, fp)
            .map(|i| self.at[i] as usize)
    }

    fn is_empty(&self) -> bool {
        self.fingerprints.is_empty()
    }

    fn memory(&self) -> u64 {
        self.fingerprints.held() + self.index.memory() + self.at.held()
    }
}

/// The default of `Prune::give_up_after`: long enough that a stretch of states the change
/// reaches rarely makes a run look up sparsely, short enough that a change which makes the
/// whole state space new costs little more than a full check.
pub const GIVE_UP_AFTER: u32 = 1 << 15;

/// Once given up, one stored state in this many is still looked up: a hit resumes looking
/// every state up.
const PROBE_EVERY: u32 = 64;

/// The states of a record, by fingerprint.
pub struct Known {
    /// Sorted (the record's own list).
    pub fingerprints: Arc<Vec<Fingerprint>>,
    index: crate::rmc::record::fpindex::FpIndex,
    /// Per position: its set (an index into the record's sets).
    pub set_of: Vec<u32>,
    /// Per position: its slot in the old graph (NONE: none, or no graph).
    slot_of: Vec<u32>,
    /// Across a declaration change that drops bytes: the states by key, which `find`
    /// answers from instead.
    pub keys: Option<Arc<crate::rmc::run::keys::Keys>>,
}

impl Known {
    pub fn new(
        fingerprints: Arc<Vec<Fingerprint>>,
        set_of: Vec<u32>,
        graph: Option<&Graph>,
    ) -> Known {
        let slot_of = match graph {
            Some(g) => g.slot_of.clone(),
            None => vec![crate::rmc::record::graph::NONE; fingerprints.len()],
        };
        Known {
            index: crate::rmc::record::fpindex::FpIndex::new(&fingerprints),
            fingerprints,
            set_of,
            slot_of,
            keys: None,
        }
    }

    /// The position of a fingerprint in the record's list (of a key's, with `keys`).
    pub fn find(&self, fp: Fingerprint) -> Option<usize> {
        match &self.keys {
            Some(k) => k.find(fp),
            None => self.index.find(&self.fingerprints, fp),
        }
    }

    /// Heap bytes held beside the fingerprints (which are the record's).
    pub fn memory(&self) -> u64 {
        self.index.memory()
            + self.set_of.held()
            + self.slot_of.held()
            + self.keys.as_ref().map_or(0, |k| k.memory())
    }

    /// The old graph's slot of the state at position `at`.
    pub fn slot(&self, at: usize) -> Option<u32> {
        self.slot_of
            .get(at)
            .copied()
            .filter(|&s| s != crate::rmc::record::graph::NONE)
    }
}

/// Whether a pruning run's search thread looks stored states up among the prunable ones. A
/// change that makes most of the state space new (a different initial state, a rewritten
/// topology) would have it compute a canonical vector and a fingerprint for every state and
/// find none: after `Prune::give_up_after` misses in a row it looks up only one state in
/// `PROBE_EVERY`, and every state again from the first hit. A state not looked up is
/// expanded, which is always sound (pruning only skips work), and a prunable state missed
/// that way costs little: every state below it is prunable too (its set is part of the
/// missed one's), so a probe among the next `PROBE_EVERY` stored states finds one.
#[derive(Default)]
struct Lookups {
    misses: u32,
    sparse: bool,
    since_probe: u32,
}

impl Lookups {
    /// Whether to look the next stored state up.
    fn wanted(&mut self) -> bool {
        if !self.sparse {
            return true;
        }
        self.since_probe += 1;
        if self.since_probe >= PROBE_EVERY {
            self.since_probe = 0;
            return true;
        }
        false
    }

    fn looked(&mut self, hit: bool, give_up_after: u32) {
        if hit {
            self.misses = 0;
            self.sparse = false;
        } else {
            self.misses = self.misses.saturating_add(1);
            if self.misses >= give_up_after {
                self.sparse = true;
            }
        }
    }
}

/// Answers the search in a run that writes a record: which stored states are pruned,
/// replayed or expanded, and the replayed events; and tells the book what happened.
pub struct Recorder {
    /// The reachable sets and the state graph, kept here or (`pipe`) on a worker thread.
    pub book: Book,
    pub pipe: Option<BookPipe>,
    prune: Option<Prune>,
    /// A replaying run's source of recorded expansions.
    pub replay: Option<Replay>,
    /// The old set of the state just skipped.
    skipped: Option<u32>,
    canon: Vec<u8>,
    /// A recorded state loaded to read its changed conditions (`as_recorded`), and its
    /// slot: when it is executed after all, the search's `load` takes it from here.
    state: State,
    state_slot: Option<u32>,
    /// A state's canonical vector in the record's layout (when the layout gained variables).
    projected: Vec<u8>,
    tags: Vec<u8>,
    /// Across a layout that gained variables: which recorded states (by position in the
    /// record's list) some new state projected to.
    met_old: Option<Vec<u64>>,
    /// Per state open on the book's graph: whether its recorded expansion is kept verbatim
    /// (the graph ignores its events, so they are not sent).
    verbatim: Vec<bool>,
    lookups: Lookups,
    /// The fingerprint of the state `lookup` last failed to find, whose canonical vector is
    /// in `canon`: the search stores that state next (`Rider::lookup`), and its vector and
    /// fingerprint are not made twice.
    missed: Option<Fingerprint>,
    /// Across a layout change, the key `lookup` last found and the state's position in the
    /// record's list (its canonical vector is in `canon`): when the search stores that
    /// state next, neither is made twice.
    found_key: Option<(u32, usize)>,
    /// Across a layout change, with the old graph: the states pruned, to carry what lies
    /// below them into the record.
    pub carry: Option<crate::rmc::run::carry::Carry>,
    /// Bytes held beside the search for its sake (the base record, what was made of it),
    /// taken from the search's memory budget when it begins.
    pub held: u64,
    /// They did not fit.
    held_oom: bool,
    /// The search's budget, and what the keys of states met through a declaration change's
    /// map (`Replay::map_memory`) have taken from it so far: they grow as the run goes.
    budget: Option<Budget>,
    map_taken: u64,
    /// Across a declaration change: the extras ids whose parent vectors the book has.
    parents_sent: u32,
}

/// Calls a `Keep` method on the pipe to the book, or on the book when it is kept here:
/// dispatched statically (these calls are made per event), and on the two fields apart, so
/// that the arguments may borrow other parts of the recorder. A book out of memory takes no
/// more calls: the search stops at its next step (`failed`), and until then the calls would
/// name states the book could not add.
macro_rules! keep {
    ($s:expr, $method:ident($($arg:expr),*)) => {
        match $s.pipe.as_mut() {
            Some(p) => p.$method($($arg),*),
            None if $s.book.oom => {}
            None => $s.book.$method($($arg),*),
        }
    };
}

impl Recorder {
    /// Heap bytes of what the run reuses (beside the record's own).
    pub fn reused_memory(&self) -> u64 {
        self.prune.as_ref().map_or(0, Prune::memory)
            + self.replay.as_ref().map_or(0, Replay::memory)
    }

    pub fn new(prune: Option<Prune>, mut replay: Option<Replay>) -> Recorder {
        // Across a layout change, the new graph starts from the old one too (its slots,
        // footprints and edges), every vector new (`GraphBuilder::new_mapped`).
        let old = replay
            .as_ref()
            .map(|r| &*r.graph)
            .or(prune.as_ref().and_then(|p| p.graph.as_ref()));
        let mapped = replay.as_ref().is_some_and(|r| r.project.is_some());
        let start = |old: Option<&Graph>| match old {
            Some(g) if mapped => GraphBuilder::new_mapped(g),
            _ => GraphBuilder::new(old),
        };
        let recorded = replay
            .as_ref()
            .filter(|r| r.project.is_some())
            .map(|r| r.fingerprints.len())
            .or(prune
                .as_ref()
                .filter(|p| p.project.is_some())
                .map(|p| p.known.fingerprints.len()));
        // (A replay's lookups and the builder that starts from its graph read the graph
        // alone: on two threads, where one can be had.)
        let (builder, lookups) = match replay.as_ref().filter(|r| !r.is_ready()) {
            Some(r) => {
                let (lookups, builder) =
                    crate::rmc::beside::beside("git-rmc-lookups", || r.lookups(), || start(old));
                (builder, Some(lookups.unwrap_or_else(|| r.lookups())))
            }
            None => (start(old), None),
        };
        if let (Some(r), Some(l)) = (replay.as_mut(), lookups) {
            r.take_lookups(l);
        }
        let mut book = Book::new(
            builder,
            prune
                .as_ref()
                .filter(|p| p.project.is_none())
                .map(|p| p.known.clone()),
            prune.as_ref().map(|p| p.sets.clone()),
            replay.as_ref().map(|r| Arc::new(r.graph.foots.clone())),
        );
        book.map = replay.as_ref().and_then(Replay::map_vectors);
        let carry = prune
            .as_ref()
            .filter(|p| p.project.is_some() && p.across.is_some())
            .map(|_| crate::rmc::run::carry::Carry::default());
        Recorder {
            book,
            pipe: None,
            met_old: recorded.map(|n| vec![0; n.div_ceil(64)]),
            verbatim: Vec::new(),
            replay,
            prune,
            skipped: None,
            canon: Vec::new(),
            state: State::default(),
            state_slot: None,
            projected: Vec::new(),
            tags: Vec::new(),
            lookups: Lookups::default(),
            missed: None,
            found_key: None,
            carry,
            held: 0,
            held_oom: false,
            budget: None,
            map_taken: 0,
            parents_sent: 0,
        }
    }

    /// The search's memory budget (once it began).
    pub fn budget(&self) -> Option<&Budget> {
        self.budget.as_ref()
    }

    /// The old graph the book's graph was made from (`GraphBuilder::new`), taken out (with
    /// the replay, which is done with it).
    pub fn take_old_graph(&mut self) -> Option<Graph> {
        // (The book's share of the graph goes first: the graph is then taken, not copied.)
        self.book.map = None;
        match self.replay.take() {
            Some(r) => Some(r.into_graph()),
            _ => self.prune.as_mut().and_then(|p| p.graph.take()),
        }
    }

    /// What pruning knew (None in a recording run).
    pub fn prune(&self) -> Option<&Prune> {
        self.prune.as_ref()
    }

    /// A state stored in a replay across a layout change that the record does not hold
    /// (`lookup` found no key for it; `canon` holds its canonical vector, `fp` its
    /// fingerprint): expanded, and written to the graph afresh.
    fn stored_unrecorded(&mut self, m: &Machine, id: u32, st: &State, fp: Fingerprint) -> Visit {
        self.open(id, None, false);
        st.tags(&mut self.tags);
        keep!(self, vector(&self.canon, &self.tags));
        keep!(self, enter(id, fp));
        keep!(self, locations(m, st));
        Visit::Expand
    }

    /// A state stored in a replay across a layout change that the record holds, known by
    /// key `k` (`st`: its vector, when the search built it): its new vector goes to the
    /// graph (built from the record's when the search did not build it), and it is walked
    /// when its footprint misses the change, else executed with the groups of its moves
    /// that the change cannot alter replayed (not with priorities: the search announces no
    /// groups then).
    fn stored_by_key(&mut self, m: &Machine, id: u32, st: Option<&State>, k: u32) -> Visit {
        let found = self.found_key.take().filter(|&(key, ..)| key == k);
        let Some(r) = self.replay.as_mut() else {
            return Visit::Expand;
        };
        let Some((slot, ctx)) = r.pair(k) else {
            r.failed = true;
            return Visit::Expand;
        };
        // A state the search did not build, whose embedding cannot fail: the book makes its
        // vector, tags and fingerprint from the pair (`MapVectors`), off the search's thread.
        let deferred = st.is_none() && r.embeds_always(slot, ctx);
        let at = match (found, st) {
            _ if deferred => r.position_of(slot).map(|(at, _)| at),
            (Some((_, at)), Some(_)) => Some(at),
            _ => {
                match r.canon_of(k) {
                    Some(c) => {
                        self.canon.clear();
                        self.canon.extend_from_slice(c);
                    }
                    None => {
                        r.failed = true;
                        return Visit::Expand;
                    }
                }
                r.position_of(slot).map(|(at, _)| at)
            }
        };
        let fp =
            (!deferred).then(|| crate::explore::store::fingerprint(m.layout.hash, &self.canon));
        match st {
            _ if deferred => {}
            Some(st) => st.tags(&mut self.tags),
            None => {
                if !r.tags_of(m, k, &mut self.tags) {
                    r.failed = true;
                    return Visit::Expand;
                }
            }
        }
        // (The keys' tables grow with the states met: charged a megabyte or more at a time.)
        let grown = r.map_memory();
        if grown > self.map_taken + (1 << 20) {
            if let Some(b) = &self.budget {
                self.held_oom |= b.take(grown - self.map_taken).is_err();
            }
            self.map_taken = grown;
        }
        let replayable = r.replayable(slot);
        let partly = !replayable && !m.layout.uses_priority;
        // A state walked whole in its own slot keeps its recorded events in the new graph
        // (the targets of steps that reach another key renamed when it finishes).
        let own_walk = replayable && k == slot;
        match (replayable, partly) {
            (true, _) => r.open(id, slot, ctx),
            (false, true) => r.open_mixed(id, slot, ctx),
            _ => {}
        }
        if own_walk {
            r.read_through();
        }
        let of = r.graph.foot[slot as usize];
        if deferred {
            // (The book learns each extras id's parent before a state names it.)
            let parents = r.parents();
            if ctx as usize >= parents.len() {
                r.failed = true;
                return Visit::Expand;
            }
            while self.parents_sent <= ctx {
                let c = &parents[self.parents_sent as usize];
                keep!(self, parent(self.parents_sent, c));
                self.parents_sent += 1;
            }
        }
        // A state named by its own slot keeps that slot in the new graph; another pair takes
        // a new one.
        self.open(id, (k == slot).then_some(slot), own_walk);
        match fp {
            Some(fp) => {
                keep!(self, vector(&self.canon, &self.tags));
                keep!(self, enter(id, fp));
            }
            None => keep!(self, enter_mapped(m, id, slot, ctx)),
        }
        if let Some(at) = at {
            self.met(at);
        }
        if replayable {
            keep!(self, foot(of, true));
            return Visit::Replay;
        }
        // (A state the search did not build, it loads: `load` adds its locations.)
        if let Some(st) = st {
            keep!(self, locations(m, st));
        }
        if partly {
            Visit::Partly
        } else {
            Visit::Expand
        }
    }

    /// The recorded state at position `at` of the record's list was met (through its
    /// projection).
    fn met(&mut self, at: usize) {
        if let Some(b) = self.met_old.as_mut() {
            if let Some(w) = b.get_mut(at / 64) {
                *w |= 1 << (at % 64);
            }
        }
    }

    /// Which recorded states a run across a layout that gained variables met through their
    /// projection, one bit per position in the record's list (None in other runs).
    pub fn old_states_met_bits(&self) -> Option<&[u64]> {
        self.met_old.as_deref()
    }

    /// A state of a pruning run looked up in the record (`canon` holds its canonical
    /// vector, `fp` its fingerprint): found at position `at` of the record's list or not,
    /// and pruned (its whole sub-state-space is as recorded: its set is the old one) or
    /// expanded.
    fn found(
        &mut self,
        m: &Machine,
        id: u32,
        st: &State,
        fp: Fingerprint,
        at: Option<usize>,
        pruned: bool,
    ) -> Visit {
        let (old_set, old_slot) = match (self.prune.as_ref(), at) {
            (Some(p), Some(at)) => (
                Some(p.known.set_of[at]),
                p.graph.as_ref().and(p.known.slot(at)),
            ),
            _ => (None, None),
        };
        if pruned && old_slot.is_none() {
            // Pruned without its recorded expansion: no graph for the next record.
            keep!(self, broken());
        }
        self.open(id, old_slot, pruned);
        if old_slot.is_none() {
            st.tags(&mut self.tags);
            keep!(self, vector(&self.canon, &self.tags));
        }
        keep!(self, enter(id, fp));
        if let Some(old) = old_set.filter(|_| pruned) {
            keep!(self, old_set(old));
            self.skipped = Some(old);
            return Visit::Skip;
        }
        keep!(self, locations(m, st));
        Visit::Expand
    }

    /// A newly stored state opened on the graph.
    fn open(&mut self, id: u32, old: Option<u32>, verbatim: bool) {
        self.verbatim.push(verbatim && old.is_some());
        keep!(self, open(id, old, verbatim));
    }

    /// Whether the recorded state `k`, whose footprint meets the change, expands as
    /// recorded all the same: the change is confined to conditions, which keep their value
    /// there, so that every process's moves would come from the record
    /// (`Replay::expands_as_recorded`). It is then walked whole, as a state the change
    /// misses. `st`: its vector, when the search built it (else it is loaded).
    fn as_recorded(&mut self, m: &Machine, k: u32, st: Option<&State>) -> bool {
        let Some(r) = self.replay.as_mut().filter(|r| !r.guards.is_empty()) else {
            return false;
        };
        match st {
            Some(st) => r.expands_as_recorded(m, k, st),
            None => {
                let mut s = std::mem::take(&mut self.state);
                self.state_slot = r.load(m, k, &mut s).then_some(k);
                let yes = self.state_slot.is_some() && r.expands_as_recorded(m, k, &s);
                self.state = s;
                yes
            }
        }
    }
}

impl Rider for Recorder {
    fn begin(&mut self, budget: &Budget) {
        self.held_oom = budget.take(self.held).is_err();
        self.budget = Some(budget.clone());
        self.map_taken = self.replay.as_ref().map_or(0, Replay::map_memory);
        keep!(self, begin(budget));
    }

    fn keyed(&self) -> bool {
        self.replay.is_some()
    }

    fn lookup(&mut self, m: &Machine, st: &State) -> Option<u32> {
        let r = self.replay.as_mut()?;
        m.canonical(st, &mut self.canon);
        let fingerprint = |c: &[u8]| crate::explore::store::fingerprint(m.layout.hash, c);
        if r.project.is_none() {
            let fp = fingerprint(&self.canon);
            let key = r.slot(fp);
            self.missed = key.is_none().then_some(fp);
            return key;
        }
        // Across a layout change: by its projection and its extras (its own fingerprint is
        // made only for a state the search stores).
        let found = r.find_projected(&self.canon, &mut self.projected);
        self.found_key = found.map(|(at, key)| (key, at));
        self.missed = found.is_none().then(|| fingerprint(&self.canon));
        found.map(|(_, key)| key)
    }

    fn stored(&mut self, m: &Machine, id: u32, st: Option<&State>, key: Option<u32>) -> Visit {
        let missed = self.missed.take();
        if let (Some(k), true) = (
            key,
            self.replay.as_ref().is_some_and(|r| r.project.is_some()),
        ) {
            return self.stored_by_key(m, id, st, k);
        }
        if let (Some(r), Some(k)) = (self.replay.as_ref(), key) {
            // A recorded state keeps its slot, vector and shape; a replayed one its events
            // and footprint too.
            let fp = r.fp_of_slot[k as usize];
            let replayable = r.replayable(k) || self.as_recorded(m, k, st);
            self.open(id, Some(k), replayable);
            keep!(self, enter(id, fp));
            if replayable {
                if let Some(r) = self.replay.as_mut() {
                    r.open(id, k, 0);
                    let of = r.graph.foot[k as usize];
                    keep!(self, foot(of, false));
                }
                return Visit::Replay;
            }
            // Executed, but the groups of its moves that the change cannot alter are
            // replayed (not with priorities: the search announces no groups then).
            let partly = !m.layout.uses_priority;
            if partly {
                if let Some(r) = self.replay.as_mut() {
                    r.open_mixed(id, k, 0);
                }
            }
            if let Some(st) = st {
                keep!(self, locations(m, st));
            }
            // Else the search loads it (`load`), which adds its locations.
            return if partly { Visit::Partly } else { Visit::Expand };
        }
        let Some(st) = st else {
            keep!(self, broken());
            return Visit::Expand;
        };
        if let Some(p) = self.prune.as_ref().filter(|p| p.project.is_none()) {
            // A pruning run: is it a prunable recorded state? Any other state is expanded,
            // and the book (beside the search) makes its fingerprint and finds its old slot
            // if the record has it, so that a recorded state keeps its slot.
            let wanted = !p.prunable.is_empty() && self.lookups.wanted();
            let at = wanted
                .then(|| {
                    m.canonical(st, &mut self.canon);
                    crate::explore::store::fingerprint(m.layout.hash, &self.canon)
                })
                .and_then(|fp| Some((fp, p.prunable.find(fp)?)));
            if wanted {
                self.lookups.looked(at.is_some(), p.give_up_after);
            }
            let Some((fp, at)) = at else {
                self.verbatim.push(false);
                keep!(self, fresh(m, id, st));
                return Visit::Expand;
            };
            return self.found(m, id, st, fp, Some(at), true);
        }
        if self.prune.is_none() && self.replay.is_none() {
            // A recording run looks nothing up.
            self.verbatim.push(false);
            keep!(self, fresh(m, id, st));
            return Visit::Expand;
        }
        let fp = match missed {
            // Looked up just now (a replay that keys states by their fingerprint).
            Some(fp) => {
                debug_assert!({
                    let mut c = Vec::new();
                    m.canonical(st, &mut c);
                    c == self.canon
                });
                fp
            }
            None => {
                m.canonical(st, &mut self.canon);
                crate::explore::store::fingerprint(m.layout.hash, &self.canon)
            }
        };
        if self.replay.is_some() {
            return self.stored_unrecorded(m, id, st, fp);
        }
        // A pruning run across a layout that gained variables: every state is looked up by
        // its projection (the states met are counted).
        let found = self.prune.as_ref().and_then(|p| {
            let (ext, old_hash) = p.project.as_ref()?;
            ext.project(&self.canon, &mut self.projected)
                .then(|| crate::explore::store::fingerprint(*old_hash, &self.projected))
                .and_then(|old| p.known.find(old))
        });
        if let Some(at) = found {
            self.met(at);
        }
        let pruned = match (self.prune.as_ref(), found) {
            (Some(p), Some(at)) => !p.meets_danger[p.known.set_of[at] as usize],
            _ => false,
        };
        if let (true, Some(p), Some(at), Some(c)) =
            (pruned, self.prune.as_ref(), found, self.carry.as_mut())
        {
            match (p.project.as_ref(), p.known.slot(at)) {
                (Some((ext, _)), Some(slot)) => c.pruned(ext, &self.canon, slot),
                _ => c.failed = true,
            }
        }
        self.found(m, id, st, fp, found, pruned)
    }

    #[inline]
    fn passed(&mut self, m: &Machine, st: &State, step: Option<TrailStep>) {
        keep!(self, passed(m, st, step));
    }

    fn created(&mut self, m: &Machine, st: &State, first: usize) {
        for pid in st.pids().skip(first) {
            let l = m.loc_id(st, pid).0;
            keep!(self, touch(l));
        }
    }

    fn groups(&self) -> bool {
        true
    }

    fn group(
        &mut self,
        m: &Machine,
        id: u32,
        st: &State,
        pid: Pid,
    ) -> crate::explore::search::GroupPlan {
        match self.replay.as_mut() {
            Some(r) => r.group(m, id, st, pid),
            None => crate::explore::search::GroupPlan::Execute,
        }
    }

    #[inline]
    fn event(&mut self, m: &Machine, ev: &Event, blocked: &[Blocked]) {
        if self.replay.is_none() && self.prune.is_none() {
            // A recording run: nothing is verbatim, no group comes from a record.
            return keep!(self, event(m, ev, blocked));
        }
        let verbatim = self.verbatim.last() == Some(&true);
        match *ev {
            Event::Group {
                pid: Some(_), foot, ..
            } if foot != crate::rmc::record::graph::NONE => {
                // A group taken from the record: its footprint is the recorded one (the new
                // graph's footprints are the old one's, across a layout change too), and its
                // locations are the state's too.
                if !verbatim {
                    keep!(self, event(m, ev, blocked));
                }
                keep!(self, foot(foot, true));
            }
            // The graph ignores the events of a state kept verbatim, but for a step through a
            // declaration change's map that reached another key than its recorded target.
            _ if verbatim => {
                let to = self.replay.as_ref().and_then(Replay::renamed_target);
                if let (Some(to), Some(id)) = (to, ev.target()) {
                    keep!(self, rename(to, id));
                }
            }
            _ => keep!(self, event(m, ev, blocked)),
        }
    }

    fn shape(&mut self, m: &Machine, key: u32) -> (u64, u64) {
        // Only asked in a replaying run, of a state the replay knows.
        self.replay.as_mut().map_or((0, 0), |r| r.shape(m, key))
    }

    fn load(&mut self, m: &Machine, key: u32, out: &mut State) -> bool {
        let Some(r) = self.replay.as_mut() else {
            return false;
        };
        // A slot's state is a function of the slot: one loaded to read its conditions
        // serves as it is.
        if self.state_slot == Some(key) {
            out.copy_from(&self.state);
        } else if !r.load(m, key, out) {
            return false;
        }
        keep!(self, locations(m, out));
        true
    }

    fn replay(&mut self, m: &Machine, blocked: &mut Vec<Blocked>) -> Event {
        match self.replay.as_mut() {
            Some(r) => r.next(m, blocked),
            None => Event::End(crate::explore::event::End::Leave),
        }
    }

    fn failed(&self) -> bool {
        self.replay.as_ref().is_some_and(|r| r.failed)
    }

    #[inline]
    fn matched(&mut self, id: u32, done: bool) {
        keep!(self, matched(id, done));
    }

    fn violation(
        &mut self,
        m: &Machine,
        kind: ViolationKind,
        edge: Option<EdgeNo>,
        blocked: &[Blocked],
    ) {
        keep!(self, violation(m, kind, edge, blocked));
    }

    #[inline]
    fn finished(&mut self, id: u32, root: bool) {
        self.verbatim.pop();
        if let Some(r) = self.replay.as_mut() {
            r.close(id);
        }
        keep!(self, finished(id, root));
    }

    #[inline]
    fn member(&mut self, id: u32) {
        keep!(self, member(id));
    }

    fn reissue(&mut self, m: &Machine, out: &mut Vec<Key>) {
        let Some(old) = self.skipped.take() else {
            return;
        };
        let Some(p) = &self.prune else {
            return;
        };
        for e in &p.sets[old as usize] {
            match e {
                Element::Location(_) => {}
                Element::Violation { kind, at, edge } => {
                    if let Some((proc, loc)) = m.locate_id(crate::program::LocId(*at)) {
                        out.push(Key::Edge(*kind, m.edge_no(proc, loc, *edge as usize)));
                    }
                }
                Element::End(locs) => {
                    let tuple: Option<Vec<(u32, u32)>> = locs
                        .iter()
                        .map(|&l| {
                            m.locate_id(crate::program::LocId(l))
                                .map(|(p, li)| (p as u32, li))
                        })
                        .collect();
                    if let Some(t) = tuple {
                        out.push(Key::End(t));
                    }
                }
            }
        }
    }

    fn out_of_memory(&self) -> bool {
        self.held_oom || self.book.oom || self.pipe.as_ref().is_some_and(|p| p.out_of_memory())
    }
}
