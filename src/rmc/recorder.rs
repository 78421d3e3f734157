//! The rider that records reachable element sets during the one search, and prunes with an
//! old record (DESIGN.md 5.1, 5.2).
//!
//! Sets follow Tarjan's algorithm, which the search runs anyway: every stored state on the
//! DFS stack has an accumulator (a bitset of element ids) that collects the locations of the
//! state and of every state passed inside atomic sequences from it, the violations that occur
//! there, and the sets of successors whose component is complete. A state that finishes
//! hands its accumulator to its parent; when it is the root of its component, its
//! accumulator is then the set of the whole component, interned and given to every member.
//! (The paper's stack walk misses cross edges into finished members of a component whose
//! root is still on the stack; this does not.)
//!
//! The same rider writes the state graph (`GraphBuilder`) and, in a replaying run, hands the
//! search the recorded expansions of the states whose footprint the change misses
//! (`Replay`).

use crate::explore::budget::{Budget, OutOfMemory};
use crate::explore::chunked::ChunkedVec;
use crate::explore::event::Event;
use crate::explore::machine::{EdgeNo, Machine};
use crate::explore::property::Key;
use crate::explore::search::{Build, Rider, Visit};
use crate::explore::state::State;
use crate::explore::trail::TrailStep;
use crate::explore::ViolationKind;

use super::elements::{Element, ElementTable, SetTable};
use super::graph::Graph;
use super::graph_build::GraphBuilder;
use super::graph_pipe::GraphPipe;
use super::replay::Replay;

/// What a pruning run knows of the old version.
pub struct Prune {
    /// Fingerprints of the recorded states, sorted, and each one's set (an index into
    /// `sets`).
    pub fingerprints: Vec<u128>,
    pub index: super::fpindex::FpIndex,
    pub set_of: Vec<u32>,
    /// Each recorded set as elements, and whether it meets the dangerous locations.
    pub sets: Vec<Vec<Element>>,
    pub meets_danger: Vec<bool>,
    /// The old state graph, whose pruned states' events the new one borrows.
    pub graph: Option<Graph>,
    /// When the new layout only adds variables: how a state projects onto the record's
    /// layout, and that layout's hash (states are looked up by the projection's
    /// fingerprint).
    pub project: Option<(super::extension::Extension, u64)>,
}

impl Prune {
    fn lookup(&self, fp: u128) -> Option<(u32, usize)> {
        self.index
            .find(&self.fingerprints, fp)
            .map(|i| (self.set_of[i], i))
    }

    /// The position of a fingerprint in the record's list.
    pub fn position(&self, fp: u128) -> Option<usize> {
        self.index.find(&self.fingerprints, fp)
    }
}

/// Records reachable sets (and prunes when given a `Prune`).
pub struct Recorder {
    pub elements: ElementTable,
    pub sets: SetTable,
    /// Per store id: the fingerprint of the state.
    pub fingerprints: Option<ChunkedVec<u128>>,
    /// Per store id: its set (u32::MAX until its component completes).
    pub set_of: Option<ChunkedVec<u32>>,
    /// One accumulator per stored state on the DFS stack, `words` u64 each, and spares.
    accs: Vec<Vec<u64>>,
    pool: Vec<Vec<u64>>,
    words: usize,
    /// The set of the component completed last, for its members.
    root_set: u32,
    prune: Option<Prune>,
    /// Old sets translated to this run's element ids.
    translated: std::collections::HashMap<u32, Vec<u32>>,
    /// The old set of the state just skipped.
    skipped: Option<u32>,
    budget: Budget,
    oom: bool,
    canon: Vec<u8>,
    /// A state's canonical vector in the record's layout (when the layout gained variables).
    projected: Vec<u8>,
    tags: Vec<u8>,
    scratch: Vec<u32>,
    /// Element id and stable id per (proctype, location index), filled as met.
    loc_elements: Vec<Vec<(u32, u32)>>,
    /// Interned sets by their bitset words (trailing zero words cut), so that a component
    /// whose set is known costs one hash lookup.
    by_bits: std::collections::HashMap<Vec<u64>, u32, xxhash_rust::xxh3::Xxh3DefaultBuilder>,
    /// Per set interned here: its bitset words, so that merging it is a few ORs.
    set_bits: Vec<Vec<u64>>,
    /// The state graph being written, here or (`pipe`) on a worker thread.
    pub graph: GraphBuilder,
    pub pipe: Option<GraphPipe>,
    /// A replaying run's source of recorded expansions.
    pub replay: Option<Replay>,
    /// Graph memory already taken from the budget.
    graph_taken: u64,
    /// Element ids of each old footprint met in a replay.
    foot_elements: Vec<Option<Vec<u32>>>,
    /// Per accumulator on the stack: the set merged into it last (sets repeat along a
    /// state's successors; merging one again changes nothing).
    last_set: Vec<u32>,
    /// Across a layout that gained variables: which recorded states (by position in the
    /// record's list) some new state projected to.
    met_old: Option<Vec<u64>>,
    /// Per pid: the (proctype, location index) added last to the accumulator on top, while
    /// that accumulator is `seen_gen` (`gen` counts accumulator changes). Inside an atomic
    /// run only the process in control moves: the others' locations are in already.
    seen: Vec<(usize, usize)>,
    seen_gen: u64,
    gen: u64,
    /// Per state open on the builder: whether its recorded expansion is kept verbatim (the
    /// builder ignores its events, so they are not sent).
    verbatim: Vec<bool>,
    /// Recorded states executed in a replay across a layout that gained variables (the
    /// search counts those it knows by key).
    pub frontier: u64,
}

impl Recorder {
    pub fn new(prune: Option<Prune>, replay: Option<Replay>) -> Recorder {
        // Across a layout change, the new graph is written afresh (its vectors are new).
        let old = replay
            .as_ref()
            .filter(|r| r.project.is_none())
            .map(|r| &r.graph)
            .or(prune.as_ref().and_then(|p| p.graph.as_ref()));
        let recorded = replay
            .as_ref()
            .filter(|r| r.project.is_some())
            .map(|r| r.fingerprints.len())
            .or(prune
                .as_ref()
                .filter(|p| p.project.is_some())
                .map(|p| p.fingerprints.len()));
        Recorder {
            met_old: recorded.map(|n| vec![0; n.div_ceil(64)]),
            seen: Vec::new(),
            seen_gen: u64::MAX,
            verbatim: Vec::new(),
            gen: 0,
            frontier: 0,
            graph: GraphBuilder::new(old),
            pipe: None,
            replay,
            graph_taken: 0,
            foot_elements: Vec::new(),
            last_set: Vec::new(),
            elements: ElementTable::default(),
            sets: SetTable::default(),
            fingerprints: None,
            set_of: None,
            accs: Vec::new(),
            pool: Vec::new(),
            words: 1,
            root_set: u32::MAX,
            prune,
            translated: Default::default(),
            skipped: None,
            budget: Budget::unlimited(),
            oom: false,
            canon: Vec::new(),
            projected: Vec::new(),
            tags: Vec::new(),
            scratch: Vec::new(),
            loc_elements: Vec::new(),
            by_bits: Default::default(),
            set_bits: Vec::new(),
        }
    }

    /// What pruning knew (None in a recording run).
    pub fn prune(&self) -> Option<&Prune> {
        self.prune.as_ref()
    }

    /// The set recorded for store id `id`.
    pub fn set_of(&self, id: u32) -> u32 {
        self.set_of
            .as_ref()
            .map_or(u32::MAX, |s| s.get(id as usize))
    }

    fn fail(&mut self, r: Result<(), OutOfMemory>) {
        if r.is_err() {
            self.oom = true;
        }
    }

    /// Makes room for element id `e` in every accumulator.
    fn widen(&mut self, e: u32) {
        let need = e as usize / 64 + 1;
        if need <= self.words {
            return;
        }
        let words = need.next_power_of_two();
        let extra = (words - self.words) as u64 * 8 * (self.accs.len() + self.pool.len()) as u64;
        if self.budget.take(extra).is_err() {
            self.oom = true;
        }
        for a in self.accs.iter_mut().chain(self.pool.iter_mut()) {
            a.resize(words, 0);
        }
        self.words = words;
    }

    #[inline]
    fn add(&mut self, e: u32) {
        self.widen(e);
        if let Some(a) = self.accs.last_mut() {
            a[e as usize / 64] |= 1 << (e % 64);
        }
    }

    fn add_set(&mut self, set: u32) {
        match self.last_set.last_mut() {
            Some(last) if *last == set => return,
            Some(last) => *last = set,
            None => return,
        }
        if let Some(n) = self.set_bits.get(set as usize).map(|b| b.len()) {
            if n > self.words {
                self.widen((n * 64 - 1) as u32);
            }
            if let (Some(a), Some(bits)) = (self.accs.last_mut(), self.set_bits.get(set as usize)) {
                for (x, b) in a.iter_mut().zip(bits) {
                    *x |= b;
                }
            }
            return;
        }
        // Sets are sorted: their last element is the widest.
        if let Some(&max) = self.sets.get(set).last() {
            self.widen(max);
        }
        if let Some(a) = self.accs.last_mut() {
            for &e in self.sets.get(set) {
                a[e as usize / 64] |= 1 << (e % 64);
            }
        }
    }

    fn add_locations(&mut self, m: &Machine, st: &State) {
        if self.seen_gen != self.gen {
            self.seen.clear();
            self.seen_gen = self.gen;
        }
        for pid in 0..st.nr_pr() {
            self.add_location(m, st, pid);
        }
        self.seen.truncate(st.nr_pr());
    }

    /// Process `pid`'s location, unless the accumulator on top has it from this pid.
    #[inline]
    fn add_location(&mut self, m: &Machine, st: &State, pid: usize) {
        let (t, l) = (st.ptype(pid), st.loc(pid) as usize);
        let n = self.seen.len();
        match self.seen.get_mut(pid) {
            Some(x) if *x == (t, l) => return,
            Some(x) => *x = (t, l),
            None if n == pid => self.seen.push((t, l)),
            None => {}
        }
        // The element and stable id of a (proctype, location index), looked up once.
        let cached = self
            .loc_elements
            .get(t)
            .and_then(|v| v.get(l))
            .copied()
            .filter(|&(e, _)| e != u32::MAX);
        let (e, stable) = match cached {
            Some(x) => x,
            None => {
                let stable = m.loc_id(st, pid);
                let e = self.elements.location(stable);
                if self.loc_elements.len() <= t {
                    self.loc_elements.resize(t + 1, Vec::new());
                }
                let row = &mut self.loc_elements[t];
                if row.len() <= l {
                    row.resize(l + 1, (u32::MAX, u32::MAX));
                }
                row[l] = (e, stable);
                (e, stable)
            }
        };
        self.g_touch(stable);
        self.add(e);
    }

    /// A newly stored state's fingerprint, its set to come, and its accumulator.
    fn enter_state(&mut self, id: u32, fp: u128) {
        let r = self
            .fingerprints
            .as_mut()
            .map_or(Ok(()), |f| f.push(fp))
            .and(self.set_of.as_mut().map_or(Ok(()), |s| s.push(u32::MAX)));
        self.fail(r);
        debug_assert_eq!(self.set_of.as_ref().map(|s| s.len()), Some(id as usize + 1));
        self.push_acc();
    }

    fn push_acc(&mut self) {
        self.gen += 1;
        let a = match self.pool.pop() {
            Some(a) => a,
            None => {
                let bytes = self.words as u64 * 8 + 24;
                if self.budget.take(bytes).is_err() {
                    self.oom = true;
                }
                vec![0; self.words]
            }
        };
        self.accs.push(a);
        self.last_set.push(u32::MAX);
    }

    fn pop_acc(&mut self) -> Option<Vec<u64>> {
        self.gen += 1;
        self.last_set.pop();
        self.accs.pop()
    }

    fn release(&mut self, mut a: Vec<u64>) {
        a.iter_mut().for_each(|w| *w = 0);
        self.pool.push(a);
    }

    /// An old set in this run's element ids.
    fn translate(&mut self, old: u32) -> Vec<u32> {
        if let Some(t) = self.translated.get(&old) {
            return t.clone();
        }
        let Some(p) = &self.prune else {
            return Vec::new();
        };
        let elems = p.sets[old as usize].clone();
        let mut t: Vec<u32> = elems.iter().map(|e| self.elements.id(e)).collect();
        t.sort_unstable();
        t.dedup();
        self.translated.insert(old, t.clone());
        t
    }

    /// A replayed state's locations and those its recorded expansion passed (its footprint
    /// in `slot`), into its accumulator (as element ids, computed once per footprint) and,
    /// when the graph is written afresh (`touch`), into its new footprint.
    fn replayed_footprint(&mut self, slot: u32, touch: bool) {
        let Some(r) = self.replay.as_ref() else {
            return;
        };
        let of = r.graph.foot[slot as usize] as usize;
        self.replayed_foot(of, touch);
    }

    /// The locations of the recorded footprint `of` (a state's, or a group's), as
    /// `replayed_footprint` takes them.
    fn replayed_foot(&mut self, of: usize, touch: bool) {
        let Some(r) = self.replay.as_ref() else {
            return;
        };
        if of >= r.graph.foots.len() {
            self.g_broken();
            return;
        }
        let mut elems = std::mem::take(&mut self.scratch);
        elems.clear();
        if let Some(Some(e)) = self.foot_elements.get(of) {
            elems.extend_from_slice(e);
        } else {
            for &l in &r.graph.foots[of] {
                elems.push(self.elements.location(l));
            }
            if self.foot_elements.len() <= of {
                self.foot_elements.resize(of + 1, None);
            }
            self.foot_elements[of] = Some(elems.clone());
        }
        if touch {
            for &l in &r.graph.foots[of] {
                touch_graph(&mut self.pipe, &mut self.graph, l);
            }
        }
        if let Some(&max) = elems.iter().max() {
            self.widen(max);
        }
        if let Some(a) = self.accs.last_mut() {
            for &e in &elems {
                a[e as usize / 64] |= 1 << (e % 64);
            }
        }
        self.scratch = elems;
    }

    /// A replay across a layout that gained variables: the state (its canonical vector in
    /// `canon`) is stored by the search, and replayed when its projection is a recorded
    /// state whose footprint misses the change. Its slot in the new graph is its own (the
    /// graph is written afresh: old slots stand for many new states).
    fn stored_projected(&mut self, m: &Machine, id: u32, st: &State, fp: u128) -> Visit {
        let found = self.replay.as_ref().and_then(|r| {
            let (ext, old_hash) = r.project.as_ref()?;
            ext.project(&self.canon, &mut self.projected)
                .then(|| crate::explore::store::fingerprint(*old_hash, &self.projected))
                .and_then(|old| r.position_and_slot(old))
        });
        self.g_open(id, None, false);
        st.tags(&mut self.tags);
        self.g_vector();
        self.enter_state(id, fp);
        if let Some((at, slot)) = found {
            self.met(at);
            if let Some(r) = self.replay.as_mut().filter(|r| r.replayable(slot)) {
                r.open_with(id, slot, &self.canon);
                self.replayed_footprint(slot, true);
                return Visit::Replay;
            }
            self.frontier += 1;
        }
        self.add_locations(m, st);
        Visit::Expand
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

    /// How many recorded states a run across a layout that gained variables met through
    /// their projection (None in other runs).
    pub fn old_states_met(&self) -> Option<u64> {
        self.met_old
            .as_ref()
            .map(|b| b.iter().map(|w| w.count_ones() as u64).sum())
    }

    // The graph calls, made on the builder here or queued to the worker.
    #[inline]
    fn g_touch(&mut self, loc: u32) {
        touch_graph(&mut self.pipe, &mut self.graph, loc);
    }

    fn g_broken(&mut self) {
        match self.pipe.as_mut() {
            Some(p) => p.broken(),
            None => self.graph.broken = true,
        }
    }

    fn g_open(&mut self, id: u32, old: Option<u32>, verbatim: bool) {
        self.verbatim.push(verbatim && old.is_some());
        match self.pipe.as_mut() {
            Some(p) => p.open(id, old, verbatim),
            None => self.graph.open(id, old, verbatim),
        }
    }

    /// The vector of the state just opened: `canon`, with `tags`.
    fn g_vector(&mut self) {
        match self.pipe.as_mut() {
            Some(p) => p.vector(&self.canon, &self.tags),
            None => self.graph.vector(&self.canon, &self.tags),
        }
    }

    fn g_event(&mut self, m: &Machine, ev: &Event, blocked: &[(usize, usize, u32)]) {
        if self.verbatim.last() == Some(&true) {
            return;
        }
        match self.pipe.as_mut() {
            Some(p) => p.event(ev, blocked),
            None => self.graph.event(m, ev, blocked),
        }
    }

    fn g_close(&mut self, id: u32) {
        self.verbatim.pop();
        match self.pipe.as_mut() {
            Some(p) => p.close(id),
            None => self.graph.close(id),
        }
    }

    fn g_memory(&self) -> u64 {
        self.pipe
            .as_ref()
            .map_or_else(|| self.graph.memory(), |p| p.memory())
    }

    fn element_of_edge(m: &Machine, kind: ViolationKind, edge: EdgeNo) -> Element {
        let (at, k) = m.edge_at(edge);
        Element::Violation { kind, at, edge: k }
    }
}

/// A location in the footprint of the state being expanded, on the builder here or queued
/// to the worker (fields apart, so that callers may hold other parts of the recorder).
#[inline]
fn touch_graph(pipe: &mut Option<GraphPipe>, graph: &mut GraphBuilder, loc: u32) {
    match pipe.as_mut() {
        Some(p) => p.touch(loc),
        None => graph.touch(loc),
    }
}

impl Rider for Recorder {
    fn begin(&mut self, budget: &Budget) {
        self.budget = budget.clone();
        self.fingerprints = Some(ChunkedVec::new(budget.clone(), 1 << 20));
        self.set_of = Some(ChunkedVec::new(budget.clone(), 1 << 18));
    }

    fn keyed(&self) -> bool {
        self.replay.as_ref().is_some_and(|r| r.project.is_none())
    }

    fn lookup(&mut self, m: &Machine, st: &State) -> Option<u32> {
        let r = self.replay.as_ref()?;
        m.canonical(st, &mut self.canon);
        r.slot(crate::explore::store::fingerprint(
            m.layout.hash,
            &self.canon,
        ))
    }

    fn stored(&mut self, m: &Machine, id: u32, st: Option<&State>, key: Option<u32>) -> Visit {
        if let (Some(r), Some(k)) = (self.replay.as_mut(), key) {
            // A recorded state keeps its slot, vector and shape; a replayed one its events
            // and footprint too.
            let fp = r.fp_of_slot[k as usize];
            let replayable = r.replayable(k);
            self.g_open(id, Some(k), replayable);
            self.enter_state(id, fp);
            if replayable {
                if let Some(r) = self.replay.as_mut() {
                    r.open(id, k);
                }
                self.replayed_footprint(k, false);
                return Visit::Replay;
            }
            // Executed, but the groups of its moves that the change cannot alter are
            // replayed (not with priorities: the search announces no groups then).
            let partly = !m.layout.uses_priority;
            if partly {
                if let Some(r) = self.replay.as_mut() {
                    r.open_mixed(id, k);
                }
            }
            if let Some(st) = st {
                self.add_locations(m, st);
            }
            // Else the search loads it (`load`), which adds its locations.
            return if partly { Visit::Partly } else { Visit::Expand };
        }
        let Some(st) = st else {
            self.g_broken();
            return Visit::Expand;
        };
        m.canonical(st, &mut self.canon);
        let fp = crate::explore::store::fingerprint(m.layout.hash, &self.canon);
        if self.replay.is_some() {
            return self.stored_projected(m, id, st, fp);
        }
        // A pruning run: the slot the old graph has for it, and whether it is pruned.
        let found = match self.prune.as_ref() {
            Some(p) => match &p.project {
                Some((ext, old_hash)) => ext
                    .project(&self.canon, &mut self.projected)
                    .then(|| crate::explore::store::fingerprint(*old_hash, &self.projected))
                    .and_then(|old| p.lookup(old)),
                None => p.lookup(fp),
            },
            None => None,
        };
        if let Some((_, at)) = found {
            self.met(at);
        }
        let (old_slot, pruned) = match (self.prune.as_ref(), found) {
            (Some(p), Some((s, at))) => (
                p.graph
                    .as_ref()
                    .map(|g| g.slot_of[at])
                    .filter(|&x| x != super::graph::NONE),
                !p.meets_danger[s as usize],
            ),
            _ => (None, false),
        };
        if pruned && old_slot.is_none() {
            // Pruned without its recorded expansion: no graph for the next record.
            self.g_broken();
        }
        self.g_open(id, old_slot, pruned);
        if old_slot.is_none() {
            st.tags(&mut self.tags);
            self.g_vector();
        }
        self.enter_state(id, fp);
        if let Some((old, _)) = found.filter(|_| pruned) {
            // Its whole sub-state-space is as recorded: its set is the old one.
            for e in self.translate(old) {
                self.add(e);
            }
            self.skipped = Some(old);
            return Visit::Skip;
        }
        self.add_locations(m, st);
        Visit::Expand
    }

    fn passed(&mut self, m: &Machine, st: &State, step: Option<TrailStep>) {
        // The footprint of the group the step belongs to has the locations its processes
        // reach (the accumulator's cache below may know them from another group).
        if let Some(s) = step {
            let q = s.rv.map(|(q, _)| q as usize);
            for pid in std::iter::once(s.pid as usize).chain(q) {
                let l = m.loc_id(st, pid);
                if l != u32::MAX {
                    self.g_touch(l);
                }
            }
        }
        // Inside an atomic run from the state whose accumulator is on top, the processes
        // that did not move are in it already.
        match step {
            Some(s) if self.seen_gen == self.gen && self.seen.len() == st.nr_pr() => {
                self.add_location(m, st, s.pid as usize);
                if let Some((q, _)) = s.rv {
                    self.add_location(m, st, q as usize);
                }
            }
            _ => self.add_locations(m, st),
        }
    }

    fn created(&mut self, m: &Machine, st: &State, first: usize) {
        for pid in first..st.nr_pr() {
            self.g_touch(m.loc_id(st, pid));
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
        pid: u8,
    ) -> crate::explore::search::GroupPlan {
        match self.replay.as_mut() {
            Some(r) => r.group(m, id, st, pid),
            None => crate::explore::search::GroupPlan::Execute,
        }
    }

    fn event(&mut self, m: &Machine, ev: &Event, blocked: &[(usize, usize, u32)]) {
        match *ev {
            Event::Group {
                pid: Some(pid),
                foot,
                rv,
                ..
            } if foot != super::graph::NONE => {
                // A group taken from the record: its footprint is the recorded one, and its
                // locations are the state's too. A graph written afresh has footprints of
                // its own: the group's is made again from its locations.
                let afresh = self.replay.as_ref().is_some_and(|r| r.project.is_some());
                if afresh {
                    let none = super::graph::NONE;
                    let marker = Event::Group {
                        pid: Some(pid),
                        foot: none,
                        rv,
                        at: none,
                    };
                    self.g_event(m, &marker, &[]);
                    let locs = self
                        .replay
                        .as_ref()
                        .and_then(|r| r.graph.foots.get(foot as usize));
                    match locs {
                        Some(ls) => {
                            for &l in ls {
                                touch_graph(&mut self.pipe, &mut self.graph, l);
                            }
                        }
                        None => self.g_broken(),
                    }
                } else {
                    self.g_event(m, ev, blocked);
                    self.replayed_foot(foot as usize, true);
                }
            }
            _ => self.g_event(m, ev, blocked),
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
        if !r.load(m, key, out) {
            return false;
        }
        self.add_locations(m, out);
        true
    }

    fn build(&mut self, m: &Machine, key: u32, out: &mut State) -> Build {
        match self.replay.as_mut() {
            Some(r) => r.build(m, key, out),
            None => Build::Failed,
        }
    }

    fn built(&mut self, key: u32, id: u32) {
        if let Some(r) = self.replay.as_mut() {
            r.built(key, id);
        }
    }

    fn replay(&mut self, m: &Machine, blocked: &mut Vec<(usize, usize, u32)>) -> Event {
        match self.replay.as_mut() {
            Some(r) => r.next(m, blocked),
            None => Event::End(crate::explore::event::End::Leave),
        }
    }

    fn failed(&self) -> bool {
        self.replay.as_ref().is_some_and(|r| r.failed)
    }

    fn matched(&mut self, id: u32, done: bool) {
        if done {
            let s = self.set_of(id);
            if s != u32::MAX {
                self.add_set(s);
            }
        }
    }

    fn violation(
        &mut self,
        m: &Machine,
        kind: ViolationKind,
        edge: Option<EdgeNo>,
        blocked: &[(usize, usize, u32)],
    ) {
        let el = match (kind, edge) {
            (ViolationKind::InvalidEndState, _) => Element::End(
                blocked
                    .iter()
                    .map(|&(_, t, l)| m.prog.procs[t].automaton.locations[l as usize].id.0)
                    .collect(),
            ),
            (k, Some(e)) if (e as usize) < m.edges.len() => Self::element_of_edge(m, k, e),
            _ => return,
        };
        let e = self.elements.id(&el);
        self.add(e);
    }

    fn finished(&mut self, id: u32, root: bool) {
        self.g_close(id);
        if let Some(r) = self.replay.as_mut() {
            r.close(id);
        }
        let grown = self.g_memory();
        if grown > self.graph_taken + (1 << 20) {
            if self.budget.take(grown - self.graph_taken).is_err() {
                self.oom = true;
            }
            self.graph_taken = grown;
        }
        let Some(a) = self.pop_acc() else {
            return;
        };
        if root {
            let used = a.iter().rposition(|&w| w != 0).map_or(0, |i| i + 1);
            // Components finished one after the other often reach the same elements.
            let last = self.root_set as usize;
            if self.set_bits.get(last).is_some_and(|b| b[..] == a[..used]) {
                // root_set stays.
            } else if let Some(&s) = self.by_bits.get(&a[..used]) {
                self.root_set = s;
            } else {
                self.scratch.clear();
                for (w, &word) in a.iter().enumerate() {
                    let mut x = word;
                    while x != 0 {
                        let b = x.trailing_zeros();
                        self.scratch.push(w as u32 * 64 + b);
                        x &= x - 1;
                    }
                }
                let before = self.sets.memory();
                self.root_set = self.sets.intern(&self.scratch);
                self.by_bits.insert(a[..used].to_vec(), self.root_set);
                if self.root_set as usize == self.set_bits.len() {
                    self.set_bits.push(a[..used].to_vec());
                }
                let grew = self.sets.memory() - before + used as u64 * 16 + 96;
                if self.budget.take(grew).is_err() {
                    self.oom = true;
                }
            }
        }
        // The parent reaches everything this state reaches, whether or not it was the root
        // of its component.
        if let Some(top) = self.accs.last_mut() {
            for (t, x) in top.iter_mut().zip(&a) {
                *t |= x;
            }
        }
        self.release(a);
    }

    fn member(&mut self, id: u32) {
        let s = self.root_set;
        if let Some(v) = self.set_of.as_mut() {
            *v.get_mut(id as usize) = s;
        }
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
        self.oom
    }
}
