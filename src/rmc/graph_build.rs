//! The state graph a run writes (DESIGN.md 5.4), built as the search goes: each stored
//! state gets its slot (its search id), its vector at once, and its events and footprint
//! when it is finished (its expansion, atomic runs included, is over by then). States a
//! pruning run skipped borrow their events from the old graph, and old states the run did
//! not reach but that stay valid are carried over, renumbered.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::explore::event::{End, Event, To};
use crate::explore::machine::Machine;

use super::graph::{decode_event, encode_event, encode_vector, EdgeTable, Graph, NONE};

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

struct Open {
    id: u32,
    buf: Vec<u8>,
    foot: Vec<u32>,
    /// A footprint known already (a replayed state keeps its recorded one).
    fixed: Option<u32>,
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
    foot: Vec<u32>,
    shape: Vec<u32>,
    ev: Vec<(u64, u32)>,
    events: Vec<u8>,
    vec: Vec<(u64, u32)>,
    vectors: Vec<u8>,
    /// (slot, old slot) of states whose events are the old graph's (pruned states).
    borrowed: Vec<(u32, u32)>,
    open: Vec<Open>,
    pool: Vec<(Vec<u8>, Vec<u32>)>,
    blocked: Vec<(u32, u32)>,
    foot_scratch: Vec<u32>,
    /// This graph's footprint id of each old footprint met (NONE: not yet).
    old_foots: Vec<u32>,
    /// This graph's shape id of each old shape met (NONE: not yet).
    old_shapes: Vec<u32>,
    /// Something could not be recorded (a state without its vector): no graph is written.
    pub broken: bool,
}

impl GraphBuilder {
    pub fn new(reference: Option<Vec<u8>>) -> GraphBuilder {
        GraphBuilder {
            reference,
            ..Default::default()
        }
    }

    /// Bytes held, for the memory budget.
    pub fn memory(&self) -> u64 {
        (self.events.capacity() + self.vectors.capacity()) as u64 + self.foot.capacity() as u64 * 32
    }

    /// A state is stored as slot `id` (slots come in order).
    pub fn open(&mut self, id: u32) {
        if self.foot.len() != id as usize {
            self.broken = true;
        }
        self.foot.push(NONE);
        self.shape.push(NONE);
        self.ev.push((0, 0));
        let (buf, foot) = self.pool.pop().unwrap_or_default();
        self.open.push(Open {
            id,
            buf,
            foot,
            fixed: None,
        });
    }

    /// The vector of the state just opened, from its canonical encoding and its records'
    /// tags.
    pub fn vector(&mut self, canon: &[u8], tags: &[u8]) {
        let reference = self.reference.get_or_insert_with(|| canon.to_vec());
        let at = self.vectors.len();
        encode_vector(reference, canon, &mut self.scratch, &mut self.vectors);
        self.vec.push((at as u64, (self.vectors.len() - at) as u32));
        self.push_shape(canon.len() as u32, tags);
    }

    /// The vector of the state just opened, as the old graph encoded it (same reference),
    /// and its shape (`old`, the old graph's id of `shape`).
    pub fn vector_copied(&mut self, bytes: &[u8], old: u32, shape: &(u32, Vec<u8>)) {
        let at = self.vectors.len();
        self.vectors.extend_from_slice(bytes);
        self.vec.push((at as u64, bytes.len() as u32));
        let known = self.old_shapes.get(old as usize).copied().unwrap_or(NONE);
        if known != NONE {
            if let Some(x) = self.shape.last_mut() {
                *x = known;
            }
            return;
        }
        self.push_shape(shape.0, &shape.1);
        let x = self.shape.last().copied().unwrap_or(NONE);
        if self.old_shapes.len() <= old as usize {
            self.old_shapes.resize(old as usize + 1, NONE);
        }
        self.old_shapes[old as usize] = x;
    }

    fn push_shape(&mut self, len: u32, tags: &[u8]) {
        // Shapes are few and repeat: found by hash, nothing allocated.
        let h = xxhash_rust::xxh3::xxh3_64_with_seed(tags, len as u64);
        let shapes = &self.shapes;
        let found = self.shape_index.get(&h).and_then(|ids| {
            ids.iter()
                .copied()
                .find(|&x| shapes[x as usize].0 == len && shapes[x as usize].1 == tags)
        });
        let id = match found {
            Some(x) => x,
            None => {
                let x = self.shapes.len() as u32;
                self.shapes.push((len, tags.to_vec()));
                self.shape_index.entry(h).or_default().push(x);
                x
            }
        };
        if let Some(x) = self.shape.last_mut() {
            *x = id;
        }
    }

    /// The id of a footprint (sorted and deduplicated in place).
    fn intern_foot(&mut self, f: &mut Vec<u32>) -> u32 {
        f.sort_unstable();
        f.dedup();
        let h = hash_u32s(f, &mut self.scratch);
        let foots = &self.foots;
        if let Some(x) = self
            .foot_index
            .get(&h)
            .and_then(|ids| ids.iter().copied().find(|&x| foots[x as usize] == *f))
        {
            return x;
        }
        let x = self.foots.len() as u32;
        self.foots.push(f.clone());
        self.foot_index.entry(h).or_default().push(x);
        x
    }

    /// A location in the footprint of the state being expanded.
    #[inline]
    pub fn touch(&mut self, loc: u32) {
        if let Some(o) = self.open.last_mut() {
            o.foot.push(loc);
        }
    }

    /// The footprint of the state just opened is this one (stable locations, sorted).
    pub fn fixed_foot(&mut self, locs: &[u32]) {
        let mut f = std::mem::take(&mut self.foot_scratch);
        f.clear();
        f.extend_from_slice(locs);
        let x = self.intern_foot(&mut f);
        self.foot_scratch = f;
        if let Some(o) = self.open.last_mut() {
            o.fixed = Some(x);
        }
    }

    /// The footprint of the state just opened is footprint `old` of the old graph (`locs`):
    /// interned once per old footprint.
    pub fn old_foot(&mut self, old: u32, locs: &[u32]) {
        let known = self.old_foots.get(old as usize).copied().unwrap_or(NONE);
        let x = if known != NONE {
            known
        } else {
            self.fixed_foot(locs);
            let x = self.open.last().and_then(|o| o.fixed).unwrap_or(NONE);
            if self.old_foots.len() <= old as usize {
                self.old_foots.resize(old as usize + 1, NONE);
            }
            self.old_foots[old as usize] = x;
            x
        };
        if let Some(o) = self.open.last_mut() {
            o.fixed = Some(x);
        }
    }

    /// The old slots of the states this run pruned.
    pub fn borrowed_old(&self) -> impl Iterator<Item = u32> + '_ {
        self.borrowed.iter().map(|&(_, o)| o)
    }

    /// The state just opened was pruned: its events are those of `old` in the old graph.
    pub fn borrow(&mut self, id: u32, old: u32) {
        self.borrowed.push((id, old));
    }

    /// An event of the expansion of the state on top.
    pub fn event(&mut self, m: &Machine, ev: &Event, blocked: &[(usize, usize, u32)]) {
        let Some(o) = self.open.last_mut() else {
            return;
        };
        self.blocked.clear();
        for &(pid, t, l) in blocked {
            let loc = m.prog.procs[t].automaton.locations[l as usize].id.0;
            self.blocked.push((pid as u32, loc));
        }
        let edges = &mut self.edges;
        encode_event(&mut o.buf, o.id, ev, &self.blocked, |no| edges.of(m, no));
    }

    /// The state `id` is finished: its events and footprint are complete.
    pub fn close(&mut self, id: u32) {
        let Some(mut o) = self.open.pop() else {
            self.broken = true;
            return;
        };
        if o.id != id {
            self.broken = true;
        }
        let foot = match o.fixed {
            Some(x) => x,
            None => self.intern_foot(&mut o.foot),
        };
        let i = o.id as usize;
        self.foot[i] = foot;
        self.ev[i] = (self.events.len() as u64, o.buf.len() as u32);
        self.events.extend_from_slice(&o.buf);
        o.buf.clear();
        o.foot.clear();
        self.pool.push((o.buf, o.foot));
    }

    /// The graph: `slot_of` per fingerprint of the record; `old` with `map` (old slot → new
    /// slot, NONE for states not kept) and the old slots carried over in order (their new
    /// slots follow this run's). None when the graph would be incomplete.
    pub fn finish(
        mut self,
        slot_of: Vec<u32>,
        old: Option<(&Graph, &[u32], &[u32])>,
    ) -> Option<Graph> {
        if self.broken || !self.open.is_empty() || self.vec.len() != self.foot.len() {
            return None;
        }
        let borrowed = std::mem::take(&mut self.borrowed);
        let carried: &[u32] = old.map_or(&[], |o| o.2);
        if !borrowed.is_empty() || !carried.is_empty() {
            let (g, map, _) = old?;
            if self.reference.as_deref() != Some(&g.reference[..]) {
                // Carried vectors are copied as encoded: they need the same reference.
                return None;
            }
            let mut foot_map: HashMap<u32, u32> = HashMap::new();
            for &(id, o) in &borrowed {
                let (f, ev) = self.translate(g, map, o, id, &mut foot_map)?;
                self.foot[id as usize] = f;
                self.ev[id as usize] = ev;
            }
            for &o in carried {
                let id = self.foot.len() as u32;
                let (f, ev) = self.translate(g, map, o, id, &mut foot_map)?;
                self.foot.push(f);
                self.ev.push(ev);
                let (a, n) = g.vec[o as usize];
                let at = self.vectors.len() as u64;
                self.vectors
                    .extend_from_slice(&g.vectors[a as usize..a as usize + n as usize]);
                self.vec.push((at, n));
                let (len, tags) = &g.shapes[g.shape[o as usize] as usize];
                self.shape.push(NONE);
                self.push_shape(*len, tags);
            }
        }
        // Footprints numbered by first use in slot order, so that a graph does not depend on
        // the order its states were finished in (a replay and a full check write the same).
        let mut renum = vec![NONE; self.foots.len()];
        let mut foots = Vec::with_capacity(self.foots.len());
        for f in self.foot.iter_mut() {
            let r = renum.get_mut(*f as usize)?;
            if *r == NONE {
                *r = foots.len() as u32;
                foots.push(std::mem::take(&mut self.foots[*f as usize]));
            }
            *f = *r;
        }
        self.foots = foots;
        // Events in slot order, as a record stores them (states finish out of order).
        let mut events = Vec::with_capacity(self.events.len());
        for e in self.ev.iter_mut() {
            let (at, n) = *e;
            *e = (events.len() as u64, n);
            events.extend_from_slice(&self.events[at as usize..at as usize + n as usize]);
        }
        self.events = events;
        Some(Graph {
            reference: self.reference.unwrap_or_default(),
            foots: self.foots,
            shapes: self.shapes,
            edges: self.edges.list,
            foot: self.foot,
            shape: self.shape,
            ev: self.ev,
            events: self.events,
            vec: self.vec,
            vectors: self.vectors,
            slot_of,
        })
    }

    /// An old state's footprint and events in this graph's terms (slots through `map`), as
    /// slot `id`.
    fn translate(
        &mut self,
        g: &Graph,
        map: &[u32],
        old: u32,
        id: u32,
        foot_map: &mut HashMap<u32, u32>,
    ) -> Option<(u32, (u64, u32))> {
        let of = g.foot[old as usize];
        let f = match foot_map.get(&of) {
            Some(&f) => f,
            None => {
                let f = self.intern_foot(&mut g.foots[of as usize].clone());
                foot_map.insert(of, f);
                f
            }
        };
        let b = g.events_of(old);
        let start = self.events.len();
        let mut at = 0;
        let mut blocked = Vec::new();
        while at < b.len() {
            let ev = decode_event(b, old, &mut at, &mut blocked, Some)?;
            let slot = |k: u32| map.get(k as usize).copied().filter(|&s| s != NONE);
            let ev = match ev {
                Event::Step {
                    step,
                    flag,
                    to: To::State(k),
                } => Event::Step {
                    step,
                    flag,
                    to: To::State(slot(k)?),
                },
                Event::End(End::Stored(k)) => Event::End(End::Stored(slot(k)?)),
                e => e,
            };
            let edges = &mut self.edges;
            encode_event(&mut self.events, id, &ev, &blocked, |i| {
                g.edges.get(i as usize).map_or(NONE, |&e| edges.id(e))
            });
        }
        Some((f, (start as u64, (self.events.len() - start) as u32)))
    }
}
