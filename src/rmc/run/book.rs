//! The bookkeeping a run that writes a record does beside its search: the reachable element
//! sets (DESIGN.md 5.1) and the state graph (`GraphBuilder`, DESIGN.md 5.4). None of it
//! answers the search: the recorder decides what the search does with a state (prune,
//! replay, expand) and tells the book what happened, here or, through `book_pipe`, on a
//! worker thread.
//!
//! Sets follow Tarjan's algorithm, which the search runs anyway: every stored state on the
//! DFS stack has an accumulator (a bitset of element ids) that collects the locations of the
//! state and of every state passed inside atomic sequences from it, the violations that occur
//! there, and the sets of successors whose component is complete. A state that finishes
//! hands its accumulator to its parent; when it is the root of its component, its
//! accumulator is then the set of the whole component, interned and given to every member.
//! (The paper's stack walk misses cross edges into finished members of a component whose
//! root is still on the stack; this does not.)

use crate::explore::Blocked;
use crate::explore::Fingerprint;
use crate::explore::Pid;
use std::sync::Arc;

use crate::explore::budget::{Budget, Held, OutOfMemory};
use crate::explore::chunked::ChunkedVec;
use crate::explore::event::Event;
use crate::explore::machine::{EdgeNo, Machine};
use crate::explore::state::State;
use crate::explore::trail::TrailStep;
use crate::explore::ViolationKind;

use crate::rmc::record::elements::{Element, ElementTable, SetTable};
use crate::rmc::record::graph_build::GraphBuilder;
use crate::rmc::run::recorder::Known;

/// What the recorder tells the book, in the search's order: the same calls on the book here
/// (`Book`) or queued for it on a worker (`BookPipe`).
pub trait Keep {
    fn begin(&mut self, budget: &Budget);
    /// The graph's side of a newly stored state: its slot in the old graph, if any, and
    /// whether its recorded expansion is kept verbatim.
    fn open(&mut self, id: u32, old: Option<u32>, verbatim: bool);
    /// The vector of the state just opened: its canonical bytes and tags.
    fn vector(&mut self, canon: &[u8], tags: &[u8]);
    /// A newly stored state's fingerprint, its set to come, and its accumulator.
    fn enter(&mut self, id: u32, fp: Fingerprint);
    /// Across a declaration change: the parent vector of the next extras id the search
    /// interned (`MapKeys::parents`), before any state names it.
    fn parent(&mut self, ctx: u32, canon: &[u8]);
    /// Across a declaration change, a walked state named by (`slot`, extras `ctx`), just
    /// opened: its vector and fingerprint made here (`MapVectors`), then `vector` and
    /// `enter` as the search would have called them.
    fn enter_mapped(&mut self, m: &Machine, id: u32, slot: u32, ctx: u32);
    /// A newly stored state that the recorder did not look up, expanded: its vector and
    /// fingerprint, its old slot if the record holds it (`open`, `vector`, `enter`), and
    /// its locations.
    fn fresh(&mut self, m: &Machine, id: u32, st: &State);
    /// Every process's location, into the accumulator on top.
    fn locations(&mut self, m: &Machine, st: &State);
    /// A pruned state: its set is the old one (`old`, an index into the old sets).
    fn old_set(&mut self, old: u32);
    /// The locations of the recorded footprint `of` (a replayed state's, or a replayed
    /// group's): into the accumulator on top and, when the graph is written afresh
    /// (`touch`), into the new footprint.
    fn foot(&mut self, of: u32, touch: bool);
    /// Across a declaration change, a step of the state on top (walked in its own slot, its
    /// recorded events kept) into its recorded target `to` reached the state stored as
    /// `id`, which is not `to`'s slot: its events are written again with that target
    /// renamed when it finishes (`GraphBuilder::rename`).
    fn rename(&mut self, to: u32, id: u32);
    /// The state `st` was reached inside an atomic run (`step` moved into it).
    fn passed(&mut self, m: &Machine, st: &State, step: Option<TrailStep>);
    /// A location in the footprint of the state being expanded.
    fn touch(&mut self, loc: u32);
    /// An event of the expansion, for the graph.
    fn event(&mut self, m: &Machine, ev: &Event, blocked: &[Blocked]);
    fn matched(&mut self, id: u32, done: bool);
    fn violation(
        &mut self,
        m: &Machine,
        kind: ViolationKind,
        edge: Option<EdgeNo>,
        blocked: &[Blocked],
    );
    /// The stored state `id` is done; `root`: it is the root of its component.
    fn finished(&mut self, id: u32, root: bool);
    /// `id` is a member of the component completed last.
    fn member(&mut self, id: u32);
    /// The graph cannot be written (what it needs is missing).
    fn broken(&mut self);
    fn out_of_memory(&self) -> bool;
}

/// The elements a state on the DFS stack reaches, as bits, and which words are in use (each
/// once, in the order they were first set).
#[derive(Default)]
struct Acc {
    w: Vec<u64>,
    dirty: Vec<u32>,
}

impl Acc {
    #[inline]
    fn set(&mut self, i: usize, bits: u64) {
        let x = &mut self.w[i];
        if *x == 0 && bits != 0 {
            self.dirty.push(i as u32);
        }
        *x |= bits;
    }

    #[inline]
    fn insert(&mut self, e: u32) {
        self.set(e as usize / 64, 1 << (e % 64));
    }

    fn clear(&mut self) {
        for &i in &self.dirty {
            self.w[i as usize] = 0;
        }
        self.dirty.clear();
    }
}

/// Reachable sets and the state graph of one run.
#[derive(Default)]
pub struct Book {
    pub elements: ElementTable,
    pub sets: SetTable,
    /// Per store id: the fingerprint of the state, in twelve bytes (`Fingerprint::kept_words`:
    /// fingerprints keep 96 bits).
    pub fingerprints: Option<ChunkedVec<[u32; 3]>>,
    /// Per store id: its set (u32::MAX until its component completes).
    pub set_of: Option<ChunkedVec<u32>>,
    /// The state graph being written.
    pub graph: GraphBuilder,
    /// The accumulator of the stored state on top of the DFS stack, `words` u64 wide; those
    /// of the `open` - 1 states below it are kept as the words they had in use (`spilled`),
    /// from `spilled_at` each. A deep search holds every state on its path open, and one
    /// dense accumulator each came to more than the visited set on such models.
    acc: Acc,
    open: usize,
    spilled_at: Vec<u32>,
    /// (A word's index and its two halves: 12 bytes, where a `(u32, u64)` takes 16.)
    spilled: Vec<[u32; 3]>,
    words: usize,
    /// The set of the component completed last, for its members.
    root_set: u32,
    /// A pruning run's recorded states, for the old slots of those it expands unasked.
    known: Option<Arc<Known>>,
    canon: Vec<u8>,
    tags: Vec<u8>,
    /// A pruning run's old sets, and those met translated to this run's element ids.
    old_sets: Option<Arc<Vec<Vec<Element>>>>,
    translated: std::collections::HashMap<u32, Vec<u32>>,
    /// A replaying run's old footprints, and the element ids of each one met.
    old_foots: Option<Arc<Vec<Vec<u32>>>>,
    foot_elements: Vec<Option<Vec<u32>>>,
    budget: Budget,
    pub oom: bool,
    scratch: Vec<u32>,
    /// Element id and stable id per (proctype, location index), filled as met.
    loc_elements: Vec<Vec<(u32, u32)>>,
    /// Per set interned here: its bitset words, so that merging it is a few ORs; empty for
    /// a sparse set (one whose words outnumber its elements, as when a model has 10^5
    /// distinct violations each reached from a few states), which merges element by element.
    set_bits: Vec<Vec<u64>>,
    /// Memory of the graph and the stacks already taken from the budget (`charge`).
    graph_taken: u64,
    /// Per accumulator on the stack: the set merged into it last (sets repeat along a
    /// state's successors; merging one again changes nothing).
    last_set: Vec<u32>,
    /// Per pid: the (proctype, location index) added last to the accumulator on top, while
    /// that accumulator is `seen_gen` (`gen` counts accumulator changes). Inside an atomic
    /// run only the process in control moves: the others' locations are in already.
    seen: Vec<(usize, usize)>,
    seen_gen: u64,
    gen: u64,
    /// Across a declaration change: what makes a walked state's new vector from the pair
    /// that names it (`enter_mapped`).
    pub map: Option<crate::rmc::run::map_vectors::MapVectors>,
    /// A walked state's vector could not be made (`enter_mapped`): the run writes no record.
    pub lost: bool,
}

impl Book {
    /// `graph`: the builder (made from the old graph when its slots carry over); `known`
    /// and `old_sets`: a pruning run's recorded states and sets; `old_foots`: a replaying
    /// run's recorded footprints.
    pub fn new(
        graph: GraphBuilder,
        known: Option<Arc<Known>>,
        old_sets: Option<Arc<Vec<Vec<Element>>>>,
        old_foots: Option<Arc<Vec<Vec<u32>>>>,
    ) -> Book {
        Book {
            graph,
            known,
            old_sets,
            old_foots,
            words: 1,
            root_set: u32::MAX,
            seen_gen: u64::MAX,
            budget: Budget::unlimited(),
            ..Book::default()
        }
    }

    /// The set recorded for store id `id`.
    pub fn set_of(&self, id: u32) -> u32 {
        self.set_of
            .as_ref()
            .map_or(u32::MAX, |s| s.get(id as usize))
    }

    /// Takes from the budget what the graph and the stacks of open states grew by since
    /// they were last charged, a megabyte or more at a time. Both ends grow: a deep search
    /// opens states for long before it finishes any.
    #[inline]
    fn charge(&mut self) {
        let now = self.graph.memory()
            + self.acc.w.held()
            + self.acc.dirty.held()
            + self.spilled_at.held()
            + self.spilled.held()
            + self.last_set.held()
            + self.map.as_ref().map_or(0, |v| v.memory());
        if now > self.graph_taken + (1 << 20) {
            if self.budget.take(now - self.graph_taken).is_err() {
                self.oom = true;
            }
            self.graph_taken = now;
        }
    }

    fn fail(&mut self, r: Result<(), OutOfMemory>) {
        if r.is_err() {
            self.oom = true;
        }
    }

    /// Makes room for element id `e` in the accumulator on top (those below keep only the
    /// words they use).
    fn widen(&mut self, e: u32) {
        let need = e as usize / 64 + 1;
        if need <= self.words {
            return;
        }
        let words = need.next_power_of_two();
        self.acc.w.resize(words, 0);
        self.words = words;
        self.charge();
    }

    /// The accumulator on top, if a state is open.
    #[inline]
    fn top(&mut self) -> Option<&mut Acc> {
        (self.open > 0).then_some(&mut self.acc)
    }

    #[inline]
    fn add(&mut self, e: u32) {
        self.widen(e);
        if let Some(a) = self.top() {
            a.insert(e);
        }
    }

    fn add_set(&mut self, set: u32) {
        match self.last_set.last_mut() {
            Some(last) if *last == set => return,
            Some(last) => *last = set,
            None => return,
        }
        if let Some(n) = self
            .set_bits
            .get(set as usize)
            .map(|b| b.len())
            .filter(|&n| n > 0)
        {
            if n > self.words {
                self.widen((n * 64 - 1) as u32);
            }
            if let (true, Some(bits)) = (self.open > 0, self.set_bits.get(set as usize)) {
                for (i, &b) in bits.iter().enumerate() {
                    self.acc.set(i, b);
                }
            }
            return;
        }
        // Sets are sorted: their last element is the widest.
        if let Some(&max) = self.sets.get(set).last() {
            self.widen(max);
        }
        if self.open > 0 {
            for &e in self.sets.get(set) {
                self.acc.insert(e);
            }
        }
    }

    /// Process `pid`'s location, unless the accumulator on top has it from this pid.
    #[inline]
    fn add_location(&mut self, m: &Machine, st: &State, pid: Pid) {
        self.add_location_at(m, pid, st.ptype(pid), st.loc(pid) as usize);
    }

    /// Process `pid`'s location `l` in proctype `t`, as `add_location`.
    #[inline]
    fn add_location_at(&mut self, m: &Machine, pid: Pid, t: usize, l: usize) {
        let n = self.seen.len();
        match self.seen.get_mut(usize::from(pid)) {
            Some(x) if *x == (t, l) => return,
            Some(x) => *x = (t, l),
            None if n == usize::from(pid) => self.seen.push((t, l)),
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
                let stable = loc_id_at(m, t, l);
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
        self.graph.touch(stable);
        self.add(e);
    }

    /// A completed component's accumulator, interned as `root_set`.
    fn intern(&mut self, acc: &mut Acc) {
        // Only the words in use are read: with 10^5 distinct violations an accumulator is
        // thousands of words, nearly all of them 0.
        acc.dirty.sort_unstable();
        let used = acc.dirty.last().map_or(0, |&i| i as usize + 1);
        let a = &acc.w;
        // Components finished one after the other often reach the same elements.
        let last = self.root_set as usize;
        if self.set_bits.get(last).is_some_and(|b| b[..] == a[..used]) {
            return;
        }
        self.scratch.clear();
        for &w in &acc.dirty {
            let mut x = a[w as usize];
            while x != 0 {
                let b = x.trailing_zeros();
                self.scratch.push(w * 64 + b);
                x &= x - 1;
            }
        }
        let known = self.sets.len();
        self.root_set = self.sets.intern(&self.scratch);
        if self.sets.len() > known {
            let dense = used <= self.scratch.len() + 4;
            self.set_bits.push(if dense {
                a[..used].to_vec()
            } else {
                Vec::new()
            });
            let held = SetTable::held(self.scratch.len()) + if dense { used as u64 * 8 } else { 0 };
            if self.budget.take(held + 24).is_err() {
                self.oom = true;
            }
        }
    }

    /// Whether a step inside an atomic run, to a state of `nr` processes, adds only the
    /// locations of the processes it moved: the accumulator on top has every other
    /// process's (`seen` is this accumulator's and has as many processes). Else every
    /// process's location is added (`locations`).
    #[inline]
    pub fn moved_suffice(&self, nr: usize) -> bool {
        self.seen_gen == self.gen && self.seen.len() == nr
    }

    /// A step inside an atomic run moved `a` (and its rendezvous partner `b`), where
    /// `moved_suffice` holds: their locations into the group's footprint and the
    /// accumulator on top.
    pub fn passed_moved(&mut self, m: &Machine, a: Moved, b: Option<Moved>) {
        self.touch_moved(m, a, b);
        for x in std::iter::once(a).chain(b) {
            self.add_location_at(m, x.pid, x.ptype as usize, x.loc as usize);
        }
    }

    /// The footprint of the group a step belongs to has the locations its processes reach
    /// (the accumulator's cache may know them from another group).
    fn touch_moved(&mut self, m: &Machine, a: Moved, b: Option<Moved>) {
        for x in std::iter::once(a).chain(b) {
            let l = loc_id_at(m, x.ptype as usize, x.loc as usize);
            if l != u32::MAX {
                self.graph.touch(l);
            }
        }
    }
}

/// A process a step moved, where it went: its proctype and location index (a state holds
/// a proctype in a byte and a location index in at most two).
#[derive(Clone, Copy, Debug)]
pub struct Moved {
    pub pid: Pid,
    pub ptype: u8,
    pub loc: u16,
}

impl Moved {
    #[inline]
    pub fn of(st: &State, pid: Pid) -> Moved {
        Moved {
            pid,
            ptype: st.ptype(pid) as u8,
            loc: st.loc(pid) as u16,
        }
    }
}

/// The stable id of location index `l` of proctype `t` (u32::MAX where there is none).
#[inline]
fn loc_id_at(m: &Machine, t: usize, l: usize) -> u32 {
    m.prog
        .procs
        .get(t)
        .and_then(|p| p.automaton.locations.get(l))
        .map_or(u32::MAX, |x| x.id.0)
}

impl Keep for Book {
    fn begin(&mut self, budget: &Budget) {
        self.budget = budget.clone();
        self.fingerprints = Some(ChunkedVec::new(budget.clone(), 1 << 20));
        self.set_of = Some(ChunkedVec::new(budget.clone(), 1 << 18));
    }

    fn locations(&mut self, m: &Machine, st: &State) {
        if self.seen_gen != self.gen {
            self.seen.clear();
            self.seen_gen = self.gen;
        }
        for pid in st.pids() {
            self.add_location(m, st, pid);
        }
        self.seen.truncate(st.nr_pr());
    }

    fn enter(&mut self, id: u32, fp: Fingerprint) {
        debug_assert_eq!(fp, fp.kept(), "a fingerprint keeps 96 bits");
        let r = self
            .fingerprints
            .as_mut()
            .map_or(Ok(()), |f| f.push(fp.kept_words()))
            .and(self.set_of.as_mut().map_or(Ok(()), |s| s.push(u32::MAX)));
        self.fail(r);
        if self.oom {
            // The run is cut here (the search learns of it through `out_of_memory`): no
            // accumulator for a state the tables do not hold.
            return;
        }
        debug_assert_eq!(self.set_of.as_ref().map(|s| s.len()), Some(id as usize + 1));
        self.gen += 1;
        if self.acc.w.len() < self.words {
            self.acc.w.resize(self.words, 0);
        }
        if self.open > 0 {
            // The state below keeps the words it uses until the new one finishes.
            self.spilled_at.push(self.spilled.len() as u32);
            for &i in &self.acc.dirty {
                let w = self.acc.w[i as usize];
                self.spilled.push([i, w as u32, (w >> 32) as u32]);
            }
            self.acc.clear();
        }
        self.open += 1;
        self.last_set.push(u32::MAX);
        self.charge();
    }

    fn fresh(&mut self, m: &Machine, id: u32, st: &State) {
        m.canonical(st, &mut self.canon);
        let fp = crate::explore::store::fingerprint(m.layout.hash, &self.canon);
        let old = self
            .known
            .as_ref()
            .and_then(|k| k.find(fp).and_then(|at| k.slot(at)));
        self.graph.open(id, old, false);
        if old.is_none() {
            st.tags(&mut self.tags);
            self.graph.vector(&self.canon, &self.tags);
        }
        self.enter(id, fp);
        self.locations(m, st);
    }

    fn old_set(&mut self, old: u32) {
        let t = match self.translated.get(&old) {
            Some(t) => t.clone(),
            None => {
                let Some(elems) = self.old_sets.as_ref().and_then(|s| s.get(old as usize)) else {
                    return;
                };
                let mut t: Vec<u32> = elems.iter().map(|e| self.elements.id(e)).collect();
                t.sort_unstable();
                t.dedup();
                self.translated.insert(old, t.clone());
                t
            }
        };
        for e in t {
            self.add(e);
        }
    }

    fn foot(&mut self, of: u32, touch: bool) {
        let of = of as usize;
        let Some(foots) = self.old_foots.clone().filter(|f| of < f.len()) else {
            self.graph.broken = true;
            return;
        };
        let mut elems = std::mem::take(&mut self.scratch);
        elems.clear();
        if let Some(Some(e)) = self.foot_elements.get(of) {
            elems.extend_from_slice(e);
        } else {
            for &l in &foots[of] {
                elems.push(self.elements.location(l));
            }
            if self.foot_elements.len() <= of {
                self.foot_elements.resize(of + 1, None);
            }
            self.foot_elements[of] = Some(elems.clone());
        }
        if touch {
            for &l in &foots[of] {
                self.graph.touch(l);
            }
        }
        if let Some(&max) = elems.iter().max() {
            self.widen(max);
        }
        if let Some(a) = self.top() {
            for &e in &elems {
                a.insert(e);
            }
        }
        self.scratch = elems;
    }

    fn rename(&mut self, to: u32, id: u32) {
        self.graph.rename(to, id);
    }

    fn passed(&mut self, m: &Machine, st: &State, step: Option<TrailStep>) {
        let at = |p: Pid| Moved::of(st, p);
        match step {
            Some(s) if self.moved_suffice(st.nr_pr()) => {
                self.passed_moved(m, at(s.pid), s.rv.map(|(q, _)| at(q)));
            }
            Some(s) => {
                self.touch_moved(m, at(s.pid), s.rv.map(|(q, _)| at(q)));
                self.locations(m, st);
            }
            None => self.locations(m, st),
        }
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
        blocked: &[Blocked],
    ) {
        let el = match (kind, edge) {
            (ViolationKind::InvalidEndState | ViolationKind::TraceIncomplete, _) => Element::End(
                blocked
                    .iter()
                    .map(|b| {
                        m.prog.procs[b.proc].automaton.locations[b.loc.0 as usize]
                            .id
                            .0
                    })
                    .collect(),
            ),
            (k, Some(e)) if (e as usize) < m.edges.len() => {
                let (at, edge) = m.edge_at(e);
                Element::Violation { kind: k, at, edge }
            }
            _ => return,
        };
        let e = self.elements.id(&el);
        self.add(e);
    }

    fn finished(&mut self, id: u32, root: bool) {
        if let Some(slot) = self.graph.renamed_top() {
            match self.map.as_ref() {
                Some(v) => self.graph.rewrite_top(v.events_of(slot)),
                None => self.graph.broken = true,
            }
        }
        self.graph.close(id);
        self.charge();
        self.gen += 1;
        self.last_set.pop();
        if self.open == 0 {
            return;
        }
        self.open -= 1;
        if root {
            let mut a = std::mem::take(&mut self.acc);
            self.intern(&mut a);
            self.acc = a;
        }
        // The parent reaches everything this state reaches, whether or not it was the root
        // of its component: its own words are added to the finished state's.
        match self.spilled_at.pop() {
            Some(at) if self.open > 0 => {
                for &[i, lo, hi] in &self.spilled[at as usize..] {
                    self.acc
                        .set(i as usize, u64::from(lo) | u64::from(hi) << 32);
                }
                self.spilled.truncate(at as usize);
            }
            _ => self.acc.clear(),
        }
    }

    fn member(&mut self, id: u32) {
        let s = self.root_set;
        if let Some(v) = self.set_of.as_mut() {
            *v.get_mut(id as usize) = s;
        }
    }

    fn open(&mut self, id: u32, old: Option<u32>, verbatim: bool) {
        self.graph.open(id, old, verbatim);
    }

    fn vector(&mut self, canon: &[u8], tags: &[u8]) {
        self.graph.vector(canon, tags);
    }

    fn parent(&mut self, ctx: u32, canon: &[u8]) {
        if !self.map.as_mut().is_some_and(|v| v.parent(ctx, canon)) {
            self.lost = true;
        }
    }

    fn enter_mapped(&mut self, m: &Machine, id: u32, slot: u32, ctx: u32) {
        let made = self.map.as_mut().and_then(|v| v.make(m, slot, ctx));
        let fp = match made {
            Some((canon, tags, fp)) => {
                self.graph.vector(canon, tags);
                fp
            }
            None => {
                // (Ruled out by the search, which hands over only pairs that embed.)
                self.lost = true;
                self.graph.broken = true;
                Fingerprint::default()
            }
        };
        self.enter(id, fp);
    }

    fn touch(&mut self, loc: u32) {
        self.graph.touch(loc);
    }

    fn event(&mut self, m: &Machine, ev: &Event, blocked: &[Blocked]) {
        self.graph.event(m, ev, blocked);
    }

    fn broken(&mut self) {
        self.graph.broken = true;
    }

    fn out_of_memory(&self) -> bool {
        self.oom
    }
}
