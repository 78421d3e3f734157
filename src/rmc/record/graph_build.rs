//! The state graph a run writes (DESIGN.md 5.4), built as the search goes. Slots are stable
//! from record to record: the new graph starts as a copy of the old one, every state the old
//! graph has keeps its slot, and new states get new slots after the old ones. A state whose
//! expansion is the recorded one (replayed, or pruned) keeps its recorded events as they
//! are; an executed state gets fresh events and footprint when it is finished (its
//! expansion, atomic runs included, is over by then). Old states the run neither reached
//! nor carried (unreachable in the new version) are dropped; when they make up most of the
//! slots, the graph is compacted (renumbered densely).

use crate::explore::Blocked;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::explore::budget::Held;
use crate::explore::event::{End, Event, To};
use crate::explore::{Pid, TrailStep};

use crate::rmc::record::blob::Blob;
use crate::rmc::record::graph::{
    apply_delta, decode_chain, encode_events, encode_vector, for_each_event, EdgeTable, Graph,
    Origin, StableNames, CHAIN, NONE,
};
use crate::rmc::record::slot_table::SlotTable;
use crate::rmc::record::spans::Spans;
use crate::rmc::record::spill::Spill;

/// An event of an open state in twelve bytes: a plain step to a state or into an atomic
/// sequence as (`PLAIN` or `ATOMIC` | pid << 8, edge-table index, target id), a group
/// marker (`GROUP`) or the end of the enumeration (`LEAVE`), any other as (`SIDE`, its
/// index in `GraphBuilder::ev_side`). A deep search holds the events of every state on its
/// path, nearly all of them of the first kinds.
#[derive(Clone, Copy)]
struct Packed([u32; 3]);

const SIDE: u32 = 0;
const PLAIN: u32 = 1;
const ATOMIC: u32 = 2;
/// A group marker: (`GROUP` | pid << 8 | `HAS_PID` | `RV`, footprint, where its touches
/// start in `foot_stack`).
const GROUP: u32 = 3;
const LEAVE: u32 = 4;
const HAS_PID: u32 = 1 << 16;
const RV: u32 = 1 << 17;

/// Keys that are hashes already (xxh3 of what they stand for) need no second hashing.
#[derive(Default)]
struct Prehashed(u64);

impl Hasher for Prehashed {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ b as u64;
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

/// Interned values by the xxh3 of their bytes: (hash → ids with that hash).
type ByHash = HashMap<u64, Vec<u32>, BuildHasherDefault<Prehashed>>;

fn hash_u32s(v: &[u32], bytes: &mut Vec<u8>) -> u64 {
    bytes.clear();
    for x in v {
        bytes.extend_from_slice(&x.to_le_bytes());
    }
    xxhash_rust::xxh3::xxh3_64(bytes)
}

/// A state being expanded. Its events and footprint grow on top of two stacks shared by
/// every open state (a child's are above its parent's, and gone when it closes), so that no
/// state needs buffers of its own.
struct Open {
    id: u32,
    slot: u32,
    /// Where its parts of the stacks start (a search as deep as its states holds every
    /// state open: 32 bytes each, not 48).
    ev_at: u32,
    side_at: u32,
    blocked_at: u32,
    foot_at: u32,
    /// Its recorded events and footprint stay (a replayed or pruned state).
    verbatim: bool,
    /// Tells its touches from those of other states.
    stamp: u32,
}

#[derive(Default)]
pub struct GraphBuilder {
    pub reference: Option<Vec<u8>>,
    foots: Vec<Vec<u32>>,
    foot_index: ByHash,
    shapes: Vec<(u32, Vec<u8>)>,
    shape_index: ByHash,
    scratch: Vec<u8>,
    edges: EdgeTable,
    /// Per slot.
    table: SlotTable,
    ev: Spans,
    vec: Spans,
    /// The bytes of the new events and vectors, compressed until the graph is finished
    /// (nothing reads them before).
    events: Spill,
    vectors: Spill,
    /// Built from an old graph: the lengths of its event and vector bytes, which the
    /// offsets here assume precede `events` and `vectors`. The old bytes are not held
    /// while the search runs (the replay reads them, nothing here does); `join` puts them
    /// in front (shared, not copied) before the graph is finished.
    old_bytes: Option<(u64, u64)>,
    /// The old graph's event and vector bytes, once joined.
    old: Option<(Blob, Blob)>,
    /// The record file the old graph's bytes came from, while every span this graph keeps
    /// inside them is the old slot's own (`join` checks).
    origin: Option<Origin>,
    /// The slot of each search id (none kept where slots are search ids).
    slots: Vec<u32>,
    /// States opened: the next search id.
    opened: u32,
    open: Vec<Open>,
    /// The events of the open states, edges already as table indices, targets as search
    /// ids, and where each one's blocked processes start in `blocked_stack` and how many
    /// (for a `Group` event: where its touches start in `foot_stack`).
    ev_stack: Vec<Packed>,
    /// The events `Packed` does not hold, with their blocked processes' (or touches')
    /// place and count.
    ev_side: Vec<(Event, u32, u32)>,
    /// Footprints of one location, by that location (NONE: not interned yet).
    single: Vec<u32>,
    blocked_stack: Vec<(u32, u32)>,
    foot_stack: Vec<u32>,
    /// Per stable location: the stamp of the open state that touched it last.
    stamps: Vec<u32>,
    next_stamp: u32,
    /// Slots opened with their recorded expansion (pruned or replayed states).
    verbatim: Vec<u32>,
    /// No old graph: every state's slot is its search id.
    ids_are_slots: bool,
    /// Built on an old graph of another layout (`new_mapped`): every live slot gets a new
    /// vector, and the old graph's vectors (of the other layout) are dropped at the finish.
    mapped: bool,
    /// Of the open states kept verbatim across a declaration change's map, the steps that
    /// reached another state than their recorded target's slot holds: (the open state's
    /// depth, the recorded target, the search id reached). A state with any has its
    /// recorded events written again with those targets renamed (`rewrite_top`).
    renames: Vec<(u32, u32, u32)>,
    /// Something could not be recorded (a state without its vector): no graph is written.
    pub broken: bool,
    /// The vector of the last new slot (the base of the next one's) and how long its chain
    /// of bases is.
    prev: Vec<u8>,
    prev_slot: Option<u32>,
    chain: u32,
    /// Bytes of the interned footprints and shapes themselves, and of their index entries.
    tables: u64,
}

/// What an interned footprint or shape costs beside its own bytes: its index entry (hash,
/// a vector of ids) and the heap block of its bytes.
const INDEX_ENTRY: u64 = 64;

impl GraphBuilder {
    /// A builder that starts from `old` (its slots, tables and bytes), or from nothing.
    pub fn new(old: Option<&Graph>) -> GraphBuilder {
        let mut b = GraphBuilder {
            ids_are_slots: old.is_none(),
            ..GraphBuilder::default()
        };
        if let Some(g) = old {
            b.reference = Some(g.reference.clone());
            for f in &g.foots {
                let h = hash_u32s(f, &mut b.scratch);
                b.foot_index
                    .entry(h)
                    .or_default()
                    .push(b.foots.len() as u32);
                b.foots.push(f.clone());
                b.tables += std::mem::size_of_val(&f[..]) as u64 + INDEX_ENTRY;
            }
            for s in &g.shapes {
                let h = xxhash_rust::xxh3::xxh3_64_with_seed(&s.1, s.0 as u64);
                b.shape_index
                    .entry(h)
                    .or_default()
                    .push(b.shapes.len() as u32);
                b.shapes.push(s.clone());
                b.tables += s.1.len() as u64 + INDEX_ENTRY;
            }
            b.edges = EdgeTable::from_list(&g.edges);
            let table = SlotTable::from_slices(&g.foot, &g.shape);
            match (table, g.ev.try_clone(), g.vec.try_clone()) {
                (Some(t), Some(ev), Some(vec)) => (b.table, b.ev, b.vec) = (t, ev, vec),
                _ => b.broken = true,
            }
            b.old_bytes = Some((g.events.len(), g.vectors.len()));
            b.origin = g.origin.clone();
        }
        b
    }

    /// A builder that starts from `old`, a graph of another layout met through a
    /// declaration change's map: its slots, footprints and edges carry over (stable ids),
    /// and a state walked through the map in its own slot keeps its recorded events, the
    /// targets of those steps that reached another state renamed (`rename`); every live
    /// slot's vector is written anew in the new layout.
    pub fn new_mapped(old: &Graph) -> GraphBuilder {
        let mut b = GraphBuilder::new(Some(old));
        b.reference = None;
        b.mapped = true;
        b
    }

    /// A step of the state on top (kept verbatim) into its recorded target `to` reached the
    /// state stored as search id `id`, which `to`'s slot does not hold.
    pub fn rename(&mut self, to: u32, id: u32) {
        let depth = self.open.len() as u32;
        if self.open.last().is_some_and(|o| o.verbatim) {
            self.renames.push((depth, to, id));
        } else {
            self.broken = true;
        }
    }

    /// The slot of the state on top, when some step of it was renamed (`rename`): its
    /// recorded events are to be written again (`rewrite_top`).
    pub fn renamed_top(&self) -> Option<u32> {
        let depth = self.open.len() as u32;
        match self.renames.last() {
            Some(&(d, ..)) if d == depth => self.open.last().map(|o| o.slot),
            _ => None,
        }
    }

    /// Writes the recorded events of the state on top (`recorded`, the old graph's bytes
    /// of its slot) again, with the targets its renames name as the slots of the states
    /// reached; its footprint stays the recorded one (the same moves).
    pub fn rewrite_top(&mut self, recorded: &[u8]) {
        let depth = self.open.len() as u32;
        let Some(o) = self.open.last() else {
            self.broken = true;
            return;
        };
        let slot = o.slot;
        let from = self
            .renames
            .iter()
            .rposition(|r| r.0 != depth)
            .map_or(0, |i| i + 1);
        let (renames, slots, ids_are_slots) =
            (&self.renames[from..], &self.slots, self.ids_are_slots);
        let to = |t: u32| match renames.iter().find(|r| r.1 == t) {
            Some(&(_, _, id)) if ids_are_slots => Some(id),
            Some(&(_, _, id)) => slots.get(id as usize).copied(),
            None => Some(t),
        };
        let (mut blocked, mut evs, mut blocked_all) = (Vec::new(), Vec::new(), Vec::new());
        let mut ok = true;
        let decoded = for_each_event(recorded, slot, &mut blocked, |ev, bl| {
            match ev.renamed(to) {
                Some(ev) => {
                    evs.push((ev, blocked_all.len(), bl.len()));
                    blocked_all.extend_from_slice(bl);
                }
                None => ok = false,
            }
        });
        if decoded.is_none() || !ok || recorded.is_empty() {
            self.broken = true;
            return;
        }
        let start = self.events.len();
        let items = evs
            .iter()
            .map(|&(ev, at, n)| (ev, &blocked_all[at..at + n]));
        encode_events(&mut self.events.tail, slot, items);
        let span = (self.bases().0 + start, (self.events.len() - start) as u32);
        self.ev.set(slot as usize, span);
        self.events.settle();
    }

    /// The old graph this builder was made from (`new`), its bytes now put in front of the
    /// new ones. Another graph breaks it.
    pub fn join(&mut self, old: Option<Graph>) {
        let Some((e, v)) = self.old_bytes.take() else {
            return;
        };
        match old {
            Some(g) if g.events.len() == e && g.vectors.len() == v => {
                let origin = self.origin.take().filter(|o| self.keeps_spans_of(&g, o));
                self.origin = origin;
                self.old = Some((g.events, g.vectors));
            }
            _ => self.broken = true,
        }
    }

    /// Whether every span of this graph that lies in the origin's bytes is the span the old
    /// graph `g` (built on the origin) has for that slot: what lets a record written on
    /// the origin name the others only.
    fn keeps_spans_of(&self, g: &Graph, o: &Origin) -> bool {
        let kept = |s: usize, mine: (u64, u32), old: Option<(u64, u32)>, of_vectors: bool| {
            !o.holds(s, mine, of_vectors) || old == Some(mine)
        };
        self.ev.len() == self.vec.len()
            && self
                .ev
                .iter()
                .zip(self.vec.iter())
                .enumerate()
                .all(|(s, (e, v))| kept(s, e, g.ev.get(s), false) && kept(s, v, g.vec.get(s), true))
    }

    /// Where bytes appended to `events` and `vectors` lie in the finished graph.
    fn bases(&self) -> (u64, u64) {
        self.old_bytes.unwrap_or((0, 0))
    }

    /// The slots of the graph being built, and the bytes of events and vectors appended to
    /// it (held compressed until it is finished).
    pub fn size(&self) -> (u64, u64) {
        (
            self.table.len() as u64,
            self.events.len() + self.vectors.len(),
        )
    }

    /// Bytes held, for the memory budget: per slot and per search id, the stacks of the
    /// open states (as deep as the search), and the interned tables.
    pub fn memory(&self) -> u64 {
        self.events.held()
            + self.vectors.held()
            + self.old.as_ref().map_or(0, |(e, v)| e.held() + v.held())
            + self.table.held()
            + self.ev.held()
            + self.vec.held()
            + self.slots.held()
            + self.verbatim.held()
            + self.renames.held()
            + self.open.held()
            + self.ev_stack.held()
            + self.ev_side.held()
            + self.blocked_stack.held()
            + self.foot_stack.held()
            + self.stamps.held()
            + self.single.held()
            + self.foots.held()
            + self.shapes.held()
            + self.tables
    }

    /// The slot of search id `id`.
    pub fn slot(&self, id: u32) -> u32 {
        match self.ids_are_slots {
            true if id < self.opened => id,
            true => NONE,
            false => self.slots.get(id as usize).copied().unwrap_or(NONE),
        }
    }

    /// A state is stored as search id `id` (ids come in order): in `old`'s slot when the
    /// old graph has it (`verbatim`: its recorded expansion holds), else in a new slot
    /// whose vector follows (`vector`).
    pub fn open(&mut self, id: u32, old: Option<u32>, verbatim: bool) {
        if self.opened != id {
            self.broken = true;
        }
        self.opened = self.opened.wrapping_add(1);
        let slot = match old {
            Some(s) if (s as usize) < self.table.len() && !self.table.live(s as usize) => s,
            Some(_) => {
                // Two states in one slot: the graph cannot be trusted.
                self.broken = true;
                self.push_slot()
            }
            None => self.push_slot(),
        };
        self.table.set_live(slot as usize, true);
        if !self.ids_are_slots {
            self.slots.push(slot);
        } else if slot != id {
            self.broken = true;
        }
        if verbatim && old.is_some() {
            self.verbatim.push(slot);
        }
        let stamp = self.next_stamp();
        let at = |n: usize| u32::try_from(n).ok();
        let starts = (
            at(self.ev_stack.len()),
            at(self.ev_side.len()),
            at(self.blocked_stack.len()),
            at(self.foot_stack.len()),
        );
        let (Some(ev_at), Some(side_at), Some(blocked_at), Some(foot_at)) = starts else {
            // Stacks of open states past 2^32 entries: no graph.
            self.broken = true;
            return;
        };
        self.open.push(Open {
            id,
            slot,
            ev_at,
            side_at,
            blocked_at,
            foot_at,
            verbatim: verbatim && old.is_some(),
            stamp,
        });
    }

    /// A stamp never used (0 is never one: stamps start out 0).
    fn next_stamp(&mut self) -> u32 {
        self.next_stamp = self.next_stamp.wrapping_add(1);
        if self.next_stamp == 0 {
            // After 2^32 states: forget every stamp rather than meet an old one.
            self.stamps.iter_mut().for_each(|x| *x = 0);
            self.next_stamp = 1;
        }
        self.next_stamp
    }

    fn push_slot(&mut self) -> u32 {
        let s = self.table.len() as u32;
        let pushed = self.table.push().is_some()
            && self.ev.push((0, 0)).is_some()
            && self.vec.push((0, 0)).is_some();
        if !pushed {
            self.broken = true;
        }
        s
    }

    /// The vector of the state just opened in a new slot, from its canonical encoding and
    /// its records' tags.
    pub fn vector(&mut self, canon: &[u8], tags: &[u8]) {
        let Some(slot) = self.open.last().map(|o| o.slot as usize) else {
            return;
        };
        let base_at = self.bases().1;
        let reference = self.reference.get_or_insert_with(|| canon.to_vec());
        let at = self.vectors.len();
        // Based on the last new slot's vector while its chain is short, else the reference.
        let back = match self.prev_slot {
            Some(p) if self.chain + 1 < CHAIN && (p as usize) < slot => slot as u32 - p,
            _ => 0,
        };
        let base = if back == 0 {
            &reference[..]
        } else {
            &self.prev[..]
        };
        encode_vector(back, base, canon, &mut self.scratch, &mut self.vectors.tail);
        self.chain = if back == 0 { 0 } else { self.chain + 1 };
        self.prev.clear();
        self.prev.extend_from_slice(canon);
        self.prev_slot = Some(slot as u32);
        self.vec
            .set(slot, (base_at + at, (self.vectors.len() - at) as u32));
        self.vectors.settle();
        let shape = self.intern_shape(canon.len() as u32, tags);
        self.table.set_shape(slot, shape);
    }

    /// The slots opened with their recorded expansion.
    pub fn verbatim_slots(&self) -> &[u32] {
        &self.verbatim
    }

    /// Marks an old state the run did not reach as still reachable (below a pruned one).
    pub fn carry(&mut self, old: u32) {
        self.table.set_live(old as usize, true);
    }

    /// Whether a slot holds a state of the new graph.
    pub fn is_live(&self, slot: u32) -> bool {
        self.table.live(slot as usize)
    }

    fn intern_shape(&mut self, len: u32, tags: &[u8]) -> u32 {
        // Shapes are few and repeat: found by hash, nothing allocated.
        let h = xxhash_rust::xxh3::xxh3_64_with_seed(tags, len as u64);
        let shapes = &self.shapes;
        let found = self.shape_index.get(&h).and_then(|ids| {
            ids.iter()
                .copied()
                .find(|&x| shapes[x as usize].0 == len && shapes[x as usize].1 == tags)
        });
        match found {
            Some(x) => x,
            None => {
                let x = self.shapes.len() as u32;
                self.shapes.push((len, tags.to_vec()));
                self.tables += tags.len() as u64 + INDEX_ENTRY;
                self.shape_index.entry(h).or_default().push(x);
                x
            }
        }
    }

    /// The id of the footprint on the top of the footprint stack from `at` (sorted and
    /// deduplicated there).
    fn intern_foot(&mut self, at: usize) -> u32 {
        self.intern_range(at, self.foot_stack.len())
    }

    /// The id of the footprint in `foot_stack[at..end]` (sorted and deduplicated there).
    fn intern_range(&mut self, at: usize, end: usize) -> u32 {
        // Most groups' footprints are their process's location alone.
        if end == at + 1 {
            let l = self.foot_stack[at] as usize;
            if let Some(&x) = self.single.get(l).filter(|&&x| x != NONE) {
                return x;
            }
            let x = self.intern_sorted(at, end);
            if l < 1 << 24 {
                if self.single.len() <= l {
                    self.single.resize(l + 1, NONE);
                }
                self.single[l] = x;
            }
            return x;
        }
        self.intern_sorted(at, end)
    }

    fn intern_sorted(&mut self, at: usize, end: usize) -> u32 {
        let f = &mut self.foot_stack[at..end];
        f.sort_unstable();
        let mut n = 0;
        for i in 0..f.len() {
            if i == 0 || f[i] != f[n - 1] {
                f[n] = f[i];
                n += 1;
            }
        }
        let f = &self.foot_stack[at..at + n];
        let h = hash_u32s(f, &mut self.scratch);
        let foots = &self.foots;
        if let Some(x) = self
            .foot_index
            .get(&h)
            .and_then(|ids| ids.iter().copied().find(|&x| foots[x as usize] == f))
        {
            return x;
        }
        let x = self.foots.len() as u32;
        self.foots.push(f.to_vec());
        self.tables += std::mem::size_of_val(f) as u64 + INDEX_ENTRY;
        self.foot_index.entry(h).or_default().push(x);
        x
    }

    /// A location in the footprint of the state being expanded.
    #[inline]
    pub fn touch(&mut self, loc: u32) {
        let Some(o) = self.open.last() else {
            return;
        };
        // Most touches repeat a location the same state touched already (every state inside
        // an atomic run has all its processes' locations): a stamp per location keeps
        // them out (a child's touches may let a few back in; interning removes those).
        let stamp = o.stamp;
        let l = loc as usize;
        if l < 1 << 24 {
            if self.stamps.len() <= l {
                self.stamps.resize(l + 1, 0);
            }
            if self.stamps[l] == stamp {
                return;
            }
            self.stamps[l] = stamp;
        }
        self.foot_stack.push(loc);
    }

    /// An event of the expansion of the state on top (states named by search id). It is
    /// encoded when the state closes: by then every state it names has its slot.
    pub fn event(&mut self, m: &impl StableNames, ev: &Event, blocked: &[Blocked]) {
        let Some(o) = self.open.last_mut() else {
            return;
        };
        if o.verbatim {
            return;
        }
        if let Event::Group { foot, at: loc, .. } = *ev {
            // A group's touches are its own: a fresh stamp lets in the locations the state
            // touched before it. Its process's location is the first.
            let at = self.foot_stack.len() as u32;
            let stamp = self.next_stamp();
            if let Some(o) = self.open.last_mut() {
                o.stamp = stamp;
            }
            self.push_event(*ev, at, 0);
            if foot == NONE && loc != NONE {
                self.touch(loc);
            }
            return;
        }
        let at = self.blocked_stack.len() as u32;
        for b in blocked {
            self.blocked_stack
                .push((u32::from(b.pid), m.loc_id(b.proc, b.loc.0)));
        }
        let edges = &mut self.edges;
        let ev = ev.map_edges(|no| edges.of(m, no));
        self.push_event(ev, at, blocked.len() as u32);
    }

    /// An event of the open state on top, packed when it is a plain step (most are).
    fn push_event(&mut self, ev: Event, at: u32, n: u32) {
        let packed = match ev {
            Event::Step {
                step:
                    TrailStep {
                        pid,
                        edge,
                        rv: None,
                    },
                flag: None,
                to,
            } if n == 0 => match to {
                To::State(k) => Some(Packed([PLAIN | u32::from(pid) << 8, edge, k])),
                To::Atomic => Some(Packed([ATOMIC | u32::from(pid) << 8, edge, 0])),
                To::Repeat => None,
            },
            Event::Group { pid, foot, rv, .. } => {
                let head = GROUP
                    | pid.map_or(0, |p| HAS_PID | u32::from(p) << 8)
                    | if rv { RV } else { 0 };
                Some(Packed([head, foot, at]))
            }
            Event::End(End::Leave) if n == 0 => Some(Packed([LEAVE, 0, 0])),
            _ => None,
        };
        match packed {
            Some(p) => self.ev_stack.push(p),
            None => {
                self.ev_stack
                    .push(Packed([SIDE, self.ev_side.len() as u32, 0]));
                self.ev_side.push((ev, at, n));
            }
        }
    }

    /// An event of an open state, as `push_event` was given it (`side`: the builder's
    /// `ev_side`).
    fn unpack(side: &[(Event, u32, u32)], p: Packed) -> Option<(Event, u32, u32)> {
        let [head, a, b] = p.0;
        let step = |to| Event::Step {
            step: TrailStep {
                pid: (head >> 8) as Pid,
                edge: a,
                rv: None,
            },
            flag: None,
            to,
        };
        match head & 0xff {
            PLAIN => Some((step(To::State(b)), 0, 0)),
            ATOMIC => Some((step(To::Atomic), 0, 0)),
            GROUP => {
                let group = Event::Group {
                    pid: (head & HAS_PID != 0).then_some((head >> 8) as Pid),
                    foot: a,
                    rv: head & RV != 0,
                    at: NONE,
                };
                Some((group, b, 0))
            }
            LEAVE => Some((Event::End(End::Leave), 0, 0)),
            _ => side.get(a as usize).copied(),
        }
    }

    /// The state `id` is finished: an executed one's events and footprint are complete, and
    /// written with the states they name by slot.
    pub fn close(&mut self, id: u32) {
        let Some(o) = self.open.pop() else {
            self.broken = true;
            return;
        };
        if o.id != id {
            self.broken = true;
        }
        if !o.verbatim {
            let slot = o.slot as usize;
            // Each group's footprint (the touches from its marker to the next), before the
            // state's (which sorts them all).
            // (Groups are always packed, their touches' start last.)
            let n = self.ev_stack.len();
            let group = |p: &Packed| p.0[0] & 0xff == GROUP;
            for i in o.ev_at as usize..n {
                let [head, foot, at] = self.ev_stack[i].0;
                if head & 0xff != GROUP || head & HAS_PID == 0 || foot != NONE {
                    continue;
                }
                let end = self.ev_stack[i + 1..]
                    .iter()
                    .find(|p| group(p))
                    .map_or(self.foot_stack.len(), |p| p.0[2] as usize);
                let id = self.intern_range(at as usize, end);
                self.ev_stack[i].0[1] = id;
            }
            let foot = self.intern_foot(o.foot_at as usize);
            self.table.set_foot(slot, foot);
            let start = self.events.len();
            let slots = &self.slots;
            let by_slot = |k: u32| slots.get(k as usize).copied();
            let (ids_are_slots, blocked_stack) = (self.ids_are_slots, &self.blocked_stack);
            let side = &self.ev_side;
            let evs = self.ev_stack.get(o.ev_at as usize..).unwrap_or_default();
            // Renamed to slots as they are encoded; the first that cannot be breaks the graph.
            let mut named = 0;
            let items = evs.iter().map_while(|&p| {
                let (ev, at, n) = Self::unpack(side, p)?;
                let ev = if ids_are_slots {
                    Some(ev)
                } else {
                    ev.renamed(by_slot)
                }?;
                let blocked = match ev {
                    Event::Group { .. } => &[][..],
                    _ => blocked_stack.get(at as usize..at as usize + n as usize)?,
                };
                named += 1;
                Some((ev, blocked))
            });
            encode_events(&mut self.events.tail, o.slot, items);
            if named != evs.len() {
                self.broken = true;
            }
            let span = (self.bases().0 + start, (self.events.len() - start) as u32);
            self.ev.set(slot, span);
            self.events.settle();
        }
        let depth = self.open.len() as u32 + 1;
        while self.renames.last().is_some_and(|r| r.0 == depth) {
            self.renames.pop();
        }
        self.ev_stack.truncate(o.ev_at as usize);
        self.ev_side.truncate(o.side_at as usize);
        self.blocked_stack.truncate(o.blocked_at as usize);
        self.foot_stack.truncate(o.foot_at as usize);
    }

    /// Slot `slot`'s vector record, the new vectors being `vectors` (`Spill::into_vec`).
    fn vector_record<'a>(&'a self, vectors: &'a [u8], slot: u32) -> Option<&'a [u8]> {
        let (a, l) = self.vec.get(slot as usize)?;
        joined(self.old.as_ref().map(|o| &o.1), vectors, a, l)
    }

    /// The events at (`a`, `l`), the new events being `events` (`Spill::into_vec`).
    fn event_record<'a>(&'a self, events: &'a [u8], a: u64, l: u32) -> Option<&'a [u8]> {
        joined(self.old.as_ref().map(|o| &o.0), events, a, l)
    }

    /// The vectors of the live slots, in the dense numbering `map` gives them, each based on
    /// the one before (decoded in slot order, most with one delta).
    fn renumber_vectors(
        &self,
        new_vectors: &[u8],
        map: &[u32],
        vec: &mut Spans,
        vectors: &mut Vec<u8>,
        live: usize,
    ) -> Option<()> {
        let reference = self.reference.clone().unwrap_or_default();
        // Only the slots some live slot's vector is decoded through: where few states stay
        // live (a change that cuts most of the state space off), the dead ones go undecoded.
        // Each vector is a delta on one slot before it, so a pass from the last slot back
        // marks every needed slot's base.
        let mut needed: Vec<bool> = map.iter().map(|&to| to != NONE).collect();
        for s in (0..needed.len()).rev() {
            if !needed[s] {
                continue;
            }
            let rec = self.vector_record(new_vectors, s as u32)?;
            if rec.is_empty() {
                continue;
            }
            let back = crate::rmc::record::graph::get_varint(rec, &mut 0)?;
            if back != 0 {
                let base = (s as u64).checked_sub(back)?;
                *needed.get_mut(base as usize)? = true;
            }
        }
        let (mut cur, mut prev, mut scratch, mut chain_buf) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut cur_slot = None;
        let mut chain = 0;
        for (s, &to) in map.iter().enumerate() {
            if !needed[s] {
                continue;
            }
            let s = s as u32;
            let rec = self.vector_record(new_vectors, s)?;
            if rec.is_empty() {
                continue;
            }
            let mut at = 0;
            let back = crate::rmc::record::graph::get_varint(rec, &mut at)?;
            let base = u32::try_from(back).ok().and_then(|b| s.checked_sub(b));
            let next_of_cur = back != 0 && base.is_some() && base == cur_slot;
            let ok = if next_of_cur {
                apply_delta(&mut cur, &rec[at..])
            } else {
                decode_chain(
                    &reference,
                    s,
                    |x| self.vector_record(new_vectors, x),
                    &mut chain_buf,
                    &mut cur,
                )
            };
            if !ok {
                return None;
            }
            cur_slot = Some(s);
            if to == NONE {
                continue;
            }
            let at = vectors.len() as u64;
            let back = if vec.is_empty() || chain + 1 >= CHAIN {
                0
            } else {
                1
            };
            let base = if back == 0 { &reference[..] } else { &prev[..] };
            encode_vector(back, base, &cur, &mut scratch, vectors);
            chain = if back == 0 { 0 } else { chain + 1 };
            vec.push((at, (vectors.len() as u64 - at) as u32))?;
            prev.clone_from(&cur);
        }
        (vec.len() == live).then_some(())
    }

    /// The graph, `slot_of` giving the slot of each fingerprint of the record (live slots
    /// only). Dead slots keep only their vector (a base of others); when they are most of the
    /// slots, the graph is renumbered densely (and `slot_of` with it). None when the graph is
    /// incomplete.
    pub fn finish(self, slot_of: Vec<u32>) -> Option<Graph> {
        self.finish_graph()?.with(slot_of)
    }

    /// `finish` but for `slot_of`, which `Finished::with` takes: the graph's bytes are
    /// written while the record's states are sorted (`assemble`), which `slot_of` follows.
    pub fn finish_graph(mut self) -> Option<Finished> {
        // (Not joined to its old graph: its offsets do not fit its bytes.)
        if self.broken || !self.open.is_empty() || self.old_bytes.is_some() {
            return None;
        }
        let n = self.table.len();
        let lives: Vec<bool> = self.table.lives().collect();
        let live = lives.iter().filter(|&&l| l).count();
        if self.mapped {
            // The old vectors are of another layout: no live slot may keep one, and the dead
            // keep none (no new vector is a delta on an old one: each is based on a slot
            // given its new vector before it, or on the new reference).
            let old_len = self.old.as_ref().map_or(0, |o| o.1.len());
            for (s, &l) in lives.iter().enumerate() {
                let (a, len) = self.vec.at(s);
                if !l {
                    self.vec.set(s, (0, 0));
                } else if len == 0 || a < old_len {
                    return None;
                }
            }
        }
        if (0..n).any(|s| lives[s] && self.table.foot(s) == NONE) {
            return None;
        }
        let new_events = std::mem::take(&mut self.events).into_vec()?;
        let new_vectors = std::mem::take(&mut self.vectors).into_vec()?;
        // Dense numbering when the dead are the majority; else stable slots.
        if live * 2 >= n {
            return Some(Finished {
                graph: self.finish_in_place(new_events, new_vectors)?,
                map: None,
                lives,
                live,
            });
        }
        let map: Vec<u32> = {
            let mut next = 0;
            self.table
                .lives()
                .map(|l| {
                    if l {
                        next += 1;
                        next - 1
                    } else {
                        NONE
                    }
                })
                .collect()
        };
        let mut g = Graph {
            reference: self.reference.clone().unwrap_or_default(),
            foots: self.foots.clone(),
            shapes: self.shapes.clone(),
            edges: self.edges.list.clone(),
            // Renumbered: no slot keeps its span, the graph is written whole.
            origin: None,
            ..Graph::default()
        };
        // The live slots' events renamed in two halves (by their bytes), each on a thread
        // where one can be had: this is most of what writing a graph costs when a change
        // cut most of the state space off, and the halves share nothing.
        let (mut total, mut cut) = (0u64, n);
        for s in 0..n {
            if self.table.live(s) {
                total += u64::from(self.ev.get(s).map_or(0, |x| x.1));
            }
        }
        let mut bytes = 0u64;
        for s in 0..n {
            if self.table.live(s) {
                bytes += u64::from(self.ev.get(s).map_or(0, |x| x.1));
                if bytes * 2 >= total {
                    cut = s + 1;
                    break;
                }
            }
        }
        let (nf, ns) = (g.foots.len(), g.shapes.len());
        let rename = |slots: std::ops::Range<usize>| self.renamed(slots, &map, &new_events, nf, ns);
        let (second, first) =
            crate::rmc::beside::beside("git-rmc-rename", || rename(cut..n), || rename(0..cut));
        let second = second.unwrap_or_else(|| rename(cut..n));
        let (first, second) = (first?, second?);
        g.foot = first.foot;
        g.foot.extend_from_slice(&second.foot);
        g.shape = first.shape;
        g.shape.extend_from_slice(&second.shape);
        let shift = first.events.len() as u64;
        for (&(a, l), by) in first
            .ev
            .iter()
            .map(|x| (x, 0))
            .chain(second.ev.iter().map(|x| (x, shift)))
        {
            g.ev.push((a + by, l))?;
        }
        let mut events = first.events;
        events.extend_from_slice(&second.events);
        let mut vectors = Vec::new();
        self.renumber_vectors(&new_vectors, &map, &mut g.vec, &mut vectors, live)?;
        g.events = Blob::from_vec(events);
        g.vectors = Blob::from_vec(vectors);
        if g.foots.is_empty() && !g.foot.is_empty() {
            return None;
        }
        Some(Finished {
            graph: g,
            map: Some(map),
            lives,
            live,
        })
    }

    /// The live slots among `slots`, their events renamed by `map` (slot to dense slot):
    /// their footprints, shapes, spans and events. None when a footprint, a shape or an
    /// event does not fit (`nf` footprints and `ns` shapes).
    fn renamed(
        &self,
        slots: std::ops::Range<usize>,
        map: &[u32],
        new_events: &[u8],
        nf: usize,
        ns: usize,
    ) -> Option<Renamed> {
        let (mut blocked, mut evs, mut blocked_all) = (Vec::new(), Vec::new(), Vec::new());
        let mut out = Renamed::default();
        for s in slots {
            if !self.table.live(s) {
                continue;
            }
            let (f, sh) = (self.table.foot(s), self.table.shape(s));
            if f as usize >= nf || sh as usize >= ns {
                return None;
            }
            out.foot.push(f);
            out.shape.push(sh);
            let (a, l) = self.ev.get(s)?;
            let b = self.event_record(new_events, a, l)?;
            let at = out.events.len() as u64;
            // Targets: slot → dense slot.
            let to = |k: u32| map.get(k as usize).copied().filter(|&x| x != NONE);
            evs.clear();
            blocked_all.clear();
            let mut ok = true;
            for_each_event(b, s as u32, &mut blocked, |ev, bl| match ev.renamed(to) {
                Some(ev) => {
                    evs.push((ev, blocked_all.len(), bl.len()));
                    blocked_all.extend_from_slice(bl);
                }
                None => ok = false,
            })?;
            if !ok {
                return None;
            }
            let items = evs
                .iter()
                .map(|&(ev, at, n)| (ev, &blocked_all[at..at + n]));
            encode_events(&mut out.events, map[s], items);
            out.ev.push((at, (out.events.len() as u64 - at) as u32));
        }
        Some(out)
    }

    /// The graph in its slots as they are: the buffers move into it as they lie (a dead
    /// slot keeps only its vector, a base of others; the file is written in slot order).
    fn finish_in_place(self, new_events: Vec<u8>, new_vectors: Vec<u8>) -> Option<Graph> {
        let (nf, ns) = (self.foots.len(), self.shapes.len());
        let (mut events, mut vectors) = self.old.unwrap_or_default();
        events.append(Blob::from_vec(new_events));
        vectors.append(Blob::from_vec(new_vectors));
        let (mut foot, mut shape) = self.table.to_vecs();
        let mut ev = self.ev;
        for (s, keep) in self.table.lives().enumerate() {
            if !keep {
                (foot[s], shape[s]) = (0, 0);
                ev.set(s, (0, 0));
                continue;
            }
            let (a, l) = ev.at(s);
            if foot[s] as usize >= nf || shape[s] as usize >= ns || events.get(a, l).is_none() {
                return None;
            }
        }
        let vectors_fit = self.vec.iter().all(|(a, l)| vectors.get(a, l).is_some());
        if !vectors_fit || (nf == 0 && !foot.is_empty()) {
            return None;
        }
        Some(Graph {
            reference: self.reference.unwrap_or_default(),
            foots: self.foots,
            shapes: self.shapes,
            edges: self.edges.list,
            foot,
            shape,
            ev,
            events,
            vec: self.vec,
            vectors,
            slot_of: Vec::new(),
            origin: self.origin,
        })
    }
}

/// Live slots' parts with their events renamed (`GraphBuilder::renamed`).
#[derive(Default)]
struct Renamed {
    foot: Vec<u32>,
    shape: Vec<u32>,
    ev: Vec<(u64, u32)>,
    events: Vec<u8>,
}

/// A graph whose bytes are written, waiting for the slot of each of the record's states
/// (`GraphBuilder::finish_graph`).
pub struct Finished {
    graph: Graph,
    /// Per slot of the builder, its slot in the graph, where the graph was renumbered
    /// densely (None: slots kept).
    map: Option<Vec<u32>>,
    /// Per slot of the builder: whether it is live, and how many are.
    lives: Vec<bool>,
    live: usize,
}

impl Finished {
    /// The graph, `slot_of` giving the slot of each fingerprint of the record (live slots
    /// only, in the builder's numbering). None when it names another slot, or not every
    /// live one.
    pub fn with(self, mut slot_of: Vec<u32>) -> Option<Graph> {
        let lives = &self.lives;
        let live = |s: u32| lives.get(s as usize).copied().unwrap_or(false);
        if slot_of.len() != self.live || slot_of.iter().any(|&s| !live(s)) {
            return None;
        }
        if let Some(map) = &self.map {
            for s in slot_of.iter_mut() {
                *s = map[*s as usize];
            }
        }
        let mut g = self.graph;
        g.slot_of = slot_of;
        Some(g)
    }
}

/// `n` bytes at `at` of an old graph's bytes (`old`, when joined) followed by `new`.
fn joined<'a>(old: Option<&'a Blob>, new: &'a [u8], at: u64, n: u32) -> Option<&'a [u8]> {
    let base = old.map_or(0, Blob::len);
    if at < base {
        return old?.get(at, n);
    }
    let a = usize::try_from(at - base).ok()?;
    new.get(a..a.checked_add(n as usize)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_counts_every_slot_and_the_states_still_open() {
        // A deep search opens states for long before it closes any: the stack of open
        // states counts, as every per-slot table does.
        let mut b = GraphBuilder::new(None);
        let n = 10_000u32;
        for id in 0..n {
            b.open(id, None, false);
        }
        let per_slot = 4 + 4 + 8 + 8 + 1; // foot, shape, ev, vec, live
        let open = std::mem::size_of::<Open>() as u64;
        assert!(
            b.memory() >= n as u64 * (per_slot + open),
            "{} bytes for {n} open states",
            b.memory()
        );
    }
}
