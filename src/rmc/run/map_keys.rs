//! Recorded states known by key across a declaration change (`Replay::project`), as a walk
//! in one layout knows them by slot: a walked state is named by its key, never built into
//! a state, hashed or stored in the visited set; only its new vector is made, for the next
//! record, and the whole state only if it is executed (docs/regression.md, "Across
//! declaration changes").
//!
//! Why a key names exactly one new state: a new state `N` whose projection is recorded
//! is determined by its projection (the kept bytes, the converted values and the handles,
//! each of which the projection gives back) and by its extras (the bytes no old byte fills:
//! added variables, changed channels, tags: `Extension::extras`); its projection is one
//! representative slot (with drops, every slot whose key is the same stands for it:
//! `Keys`). So (representative slot, extras) names `N`, and every state the search meets
//! through the map is looked up by that pair: a built one by its projection and its own
//! extras, a walked successor by its recorded slot and the extras the embedding gives it,
//! which depend only on the slot's shape and the parent's extras (they are the embedding's
//! template, `EmbedPlan`). The key of a slot with the first extras it is met with is the
//! slot itself (most slots are met with one); other pairs get keys past the graph's slots.

use std::collections::HashMap;

use xxhash_rust::xxh3::Xxh3DefaultBuilder;

use crate::explore::budget::Held;
use crate::explore::machine::Machine;
use crate::explore::state::State;
use crate::rmc::diff::extension::{EmbedPlan, Extension};
use crate::rmc::record::graph::{Graph, SeqDecoder, NONE};

/// The keys of the states met through one map, and what building their vectors needs.
#[derive(Default)]
pub struct MapKeys {
    /// Extras met, interned; per id, a new canonical vector with them (what the
    /// embedding takes them from).
    extras: HashMap<Vec<u8>, u32, Xxh3DefaultBuilder>,
    parents: Vec<Vec<u8>>,
    buf: Vec<u8>,
    /// Per slot: its recorded shape, and the extras id its own key stands with (NONE: not
    /// met yet); side by side, as a walked step reads both of its target.
    primary: Vec<[u32; 2]>,
    /// Keys past the graph's slots: (slot, extras id) to key, and back.
    pairs: HashMap<(u32, u32), u32, Xxh3DefaultBuilder>,
    pair_of: Vec<(u32, u32)>,
    /// Per (recorded shape, parent's extras id): the successor's extras id; and per shape,
    /// the pair asked for last (a shape is mostly met with one parent's extras), looked at
    /// first.
    successor: HashMap<(u32, u32), u32, Xxh3DefaultBuilder>,
    last: Vec<(u32, u32)>,
    emb: Embedder,
    /// Per (recorded shape, extras id): the new vector's (search-form length, pan bytes)
    /// and tags; and per shape, the extras id and the index there of the one asked for
    /// last.
    shapes: HashMap<(u32, u32), usize, Xxh3DefaultBuilder>,
    shape_list: Vec<(u64, u64, Vec<u8>)>,
    last_shape: Vec<(u32, u32)>,
    state: State,
    /// Bytes of the parents, the extras keys and the shapes' tags held.
    vectors: u64,
}

impl MapKeys {
    /// Heap bytes held (roughly: the tables' entries).
    #[inline]
    pub fn memory(&self) -> u64 {
        // (Tables' entries counted at 24 bytes; the vectors they hold as they were added.)
        let entry = 24;
        (self.extras.len() + self.pairs.len() + self.successor.len() + self.emb.plans.len()) as u64
            * entry
            + self.vectors
            + (self.last.held() + self.last_shape.held())
            + self.pair_of.held()
            + self.primary.held()
    }

    /// The extras id of the new state whose canonical vector is `canon` (None: it has
    /// none: a vector of another layout).
    pub fn intern(&mut self, ext: &Extension, canon: &[u8]) -> Option<u32> {
        if !ext.extras(canon, &mut self.buf) {
            return None;
        }
        if let Some(&id) = self.extras.get(self.buf.as_slice()) {
            return Some(id);
        }
        let id = u32::try_from(self.parents.len()).ok()?;
        self.extras.insert(self.buf.clone(), id);
        self.parents.push(canon.to_vec());
        self.vectors += (self.buf.len() + canon.len()) as u64;
        Some(id)
    }

    /// The key of (representative slot `rep`, extras id `ctx`) in the record's graph `g`
    /// (None: past what a key holds).
    pub fn key(&mut self, g: &Graph, rep: u32, ctx: u32) -> Option<u32> {
        if self.primary.len() != g.len() {
            self.primary = g.shape.iter().map(|&s| [s, NONE]).collect();
        }
        let p = &mut self.primary.get_mut(rep as usize)?[1];
        if *p == NONE {
            *p = ctx;
        }
        if *p == ctx {
            return Some(rep);
        }
        let slots = g.len();
        if let Some(&k) = self.pairs.get(&(rep, ctx)) {
            return Some(k);
        }
        let k = u32::try_from(slots + self.pair_of.len())
            .ok()
            .filter(|&k| k < u32::MAX - 1)?;
        self.pairs.insert((rep, ctx), k);
        self.pair_of.push((rep, ctx));
        Some(k)
    }

    /// The (representative slot, extras id) a key names.
    pub fn pair(&self, slots: usize, key: u32) -> Option<(u32, u32)> {
        match (key as usize).checked_sub(slots) {
            None => Some((key, self.primary.get(key as usize)?[1])).filter(|p| p.1 != NONE),
            Some(i) => self.pair_of.get(i).copied(),
        }
    }

    /// The key of the state that a step into the recorded `slot` reaches from a state with
    /// extras `ctx`, the slot standing for itself (no drops).
    pub fn target(&mut self, g: &Graph, ext: &Extension, slot: u32, ctx: u32) -> Option<u32> {
        if let Some(&[shape, p]) = self.primary.get(slot as usize) {
            if let Some(&(c, n)) = self.last.get(shape as usize) {
                if c == ctx && p == n {
                    return Some(slot);
                }
            }
        }
        let next = self.successor(g, ext, slot, ctx)?;
        self.key(g, slot, next)
    }

    /// The extras id of the state that a step into the recorded `slot` reaches from a
    /// state with extras `ctx`.
    pub fn successor(&mut self, g: &Graph, ext: &Extension, slot: u32, ctx: u32) -> Option<u32> {
        let shape = *g.shape.get(slot as usize)?;
        if let Some(&(c, n)) = self.last.get(shape as usize) {
            if c == ctx {
                return Some(n);
            }
        }
        let n = match self.successor.get(&(shape, ctx)) {
            Some(&n) => n,
            None => {
                self.embed(g, ext, slot, ctx)?;
                let canon = std::mem::take(&mut self.emb.embedded);
                let n = self.intern(ext, &canon);
                self.emb.embedded = canon;
                let n = n?;
                self.successor.insert((shape, ctx), n);
                n
            }
        };
        if self.last.len() <= shape as usize {
            self.last.resize(shape as usize + 1, (NONE, NONE));
        }
        self.last[shape as usize] = (ctx, n);
        Some(n)
    }

    /// The new canonical vector of the recorded `slot` with the extras `ctx`.
    pub fn embed(&mut self, g: &Graph, ext: &Extension, slot: u32, ctx: u32) -> Option<&[u8]> {
        let parent = self.parents.get(ctx as usize)?;
        self.emb.embed(g, ext, parent, slot, ctx)
    }

    /// Whether the recorded `slot`'s vector embeds with the extras `ctx` whatever values it
    /// holds (`EmbedPlan::total`): where it does, the vector may be made later, where the
    /// book is, from the pair alone (`MapVectors`).
    pub fn embeds_always(&mut self, g: &Graph, ext: &Extension, slot: u32, ctx: u32) -> bool {
        match self.parents.get(ctx as usize) {
            Some(parent) => self.emb.total(g, ext, parent, slot, ctx),
            None => false,
        }
    }

    /// The extras ids interned so far, each with the new canonical vector that stands for
    /// it (the parent its successors are embedded with).
    pub fn parents(&self) -> &[Vec<u8>] {
        &self.parents
    }

    /// The state the key (`slot`, `ctx`) names, built for the new machine.
    pub fn load(
        &mut self,
        m: &Machine,
        g: &Graph,
        ext: &Extension,
        (slot, ctx): (u32, u32),
        out: &mut State,
    ) -> bool {
        self.embed(g, ext, slot, ctx)
            .is_some_and(|canon| m.from_canonical(canon, out))
    }

    /// The (search-form length, pan bytes) and the tags of the state (`slot`, `ctx`)
    /// names, computed once per recorded shape and extras.
    pub fn shape(
        &mut self,
        m: &Machine,
        g: &Graph,
        ext: &Extension,
        (slot, ctx): (u32, u32),
    ) -> Option<(u64, u64, &[u8])> {
        let shape = *g.shape.get(slot as usize)?;
        let known = match self.last_shape.get(shape as usize) {
            Some(&(c, i)) if c == ctx => Some(i as usize),
            _ => self.shapes.get(&(shape, ctx)).copied(),
        };
        let i = match known {
            Some(i) => i,
            None => {
                let mut st = std::mem::take(&mut self.state);
                let canon_len = self.embed(g, ext, slot, ctx).map(|c| c.len());
                let built = canon_len.is_some() && m.from_canonical(&self.emb.embedded, &mut st);
                let mut tags = Vec::new();
                st.tags(&mut tags);
                self.state = st;
                let canon_len = canon_len.filter(|_| built)?;
                let len = m.vector_len_of(canon_len as u64, &tags);
                let pan = m.pan_of_tags(&tags).unwrap_or(0);
                self.vectors += tags.len() as u64 + 24;
                self.shape_list.push((len, pan, tags));
                let i = self.shape_list.len() - 1;
                self.shapes.insert((shape, ctx), i);
                i
            }
        };
        if self.last_shape.len() <= shape as usize {
            self.last_shape.resize(shape as usize + 1, (NONE, NONE));
        }
        self.last_shape[shape as usize] = (ctx, i as u32);
        let (len, pan, tags) = self.shape_list.get(i)?;
        Some((*len, *pan, tags))
    }
}

/// How recorded vectors are embedded in the new layout with a parent's extras: planned once
/// per (recorded shape, extras id), since the embedding depends on those alone, and applied
/// without walking records; the vectors decoded each from the one before where they can be.
#[derive(Default)]
pub struct Embedder {
    plans: HashMap<(u32, u32), EmbedPlan, Xxh3DefaultBuilder>,
    decoder: SeqDecoder,
    pub embedded: Vec<u8>,
}

impl Embedder {
    /// The new canonical vector of the recorded `slot` with the extras `ctx`, whose
    /// parent's vector is `parent`.
    pub fn embed(
        &mut self,
        g: &Graph,
        ext: &Extension,
        parent: &[u8],
        slot: u32,
        ctx: u32,
    ) -> Option<&[u8]> {
        let shape = *g.shape.get(slot as usize)?;
        let old = self.decoder.decode(g, slot)?;
        let plan = match self.plans.get(&(shape, ctx)) {
            Some(p) => Some(p),
            None => match ext.embed_plan(old, parent) {
                Some(p) => Some(&*self.plans.entry((shape, ctx)).or_insert(p)),
                None => None,
            },
        };
        let ok = match plan {
            Some(p) => p.apply(old, &mut self.embedded),
            None => ext.embed(old, parent, &mut self.embedded),
        };
        ok.then_some(&self.embedded[..])
    }

    /// Whether every vector of the recorded `slot`'s shape embeds with the extras `ctx`
    /// (its plan converts no value a new type may not hold and renumbers no handle); false
    /// where the plan cannot be made.
    pub fn total(
        &mut self,
        g: &Graph,
        ext: &Extension,
        parent: &[u8],
        slot: u32,
        ctx: u32,
    ) -> bool {
        let Some(&shape) = g.shape.get(slot as usize) else {
            return false;
        };
        if !self.plans.contains_key(&(shape, ctx))
            && self.embed(g, ext, parent, slot, ctx).is_none()
        {
            return false;
        }
        self.plans.get(&(shape, ctx)).is_some_and(EmbedPlan::total)
    }
}
