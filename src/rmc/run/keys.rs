//! Recorded states by key. Across a declaration change that drops old bytes (a removed
//! variable, an array's removed elements), several recorded states stand for one new state,
//! and a new state is met through its projection, whose dropped bytes are zero: the
//! record's own fingerprints cannot answer it. Its states are indexed again by the
//! fingerprint of their key (`Extension::key_of_old`), computed from the recorded vectors.

use crate::explore::budget::Held;
use crate::explore::Fingerprint;
use crate::rmc::diff::extension::Extension;
use crate::rmc::record::fpindex::FpIndex;
use crate::rmc::record::graph::{Graph, SeqDecoder, NONE};

/// The record's states by key fingerprint: one position of the record's list per key (the
/// others stand for the same new states).
pub struct Keys {
    /// Sorted, distinct.
    fps: Vec<Fingerprint>,
    /// Per key: a position in the record's list.
    at: Vec<u32>,
    index: FpIndex,
    /// Per slot of the graph: the position `find` gives for its key and that position's
    /// slot, side by side (a walked step reads both of its target); NONE: no image.
    rep_of_slot: Vec<[u32; 2]>,
    /// Recorded states without an image in the new layout.
    pub without_image: u64,
}

impl Keys {
    /// Indexes the states of `graph` (a record's, whose list has `states` positions) by the
    /// fingerprint (seeded with `seed`) of their key under `ext`. None: a vector could not
    /// be decoded (a corrupt graph).
    pub fn build(graph: &Graph, ext: &Extension, seed: u64) -> Option<Keys> {
        // In slot order, so that each vector decodes from the one before.
        let mut order: Vec<(u32, u32)> = graph
            .slot_of
            .iter()
            .enumerate()
            .filter(|(_, &s)| s != NONE)
            .map(|(i, &s)| (s, i as u32))
            .collect();
        order.sort_unstable();
        let (mut dec, mut key) = (SeqDecoder::default(), Vec::new());
        // (key fingerprint, position, slot): sorted by key, the lowest position first, each
        // key's representative (sorted in place: an indirect sort's lookups miss the cache).
        let mut pairs: Vec<(Fingerprint, u32, u32)> = Vec::with_capacity(order.len());
        let mut without_image = 0;
        for &(s, i) in &order {
            let last = dec.decode(graph, s)?;
            if ext.key_of_old(last, &mut key) {
                pairs.push((crate::explore::store::fingerprint(seed, &key), i, s));
            } else {
                without_image += 1;
            }
        }
        pairs.sort_unstable();
        let mut rep_of_slot = vec![[NONE; 2]; graph.len()];
        let (mut fps, mut at) = (Vec::new(), Vec::new());
        for &(fp, i, s) in &pairs {
            if fps.last() != Some(&fp) {
                fps.push(fp);
                at.push(i);
            }
            if let (Some(r), Some(&rep)) = (rep_of_slot.get_mut(s as usize), at.last()) {
                let rep_slot = graph.slot_of.get(rep as usize).copied().unwrap_or(NONE);
                *r = [rep, rep_slot];
            }
        }
        Some(Keys {
            index: FpIndex::new(&fps),
            fps,
            at,
            rep_of_slot,
            without_image,
        })
    }

    /// A position in the record's list of a state whose key has fingerprint `fp`.
    #[inline]
    pub fn find(&self, fp: Fingerprint) -> Option<usize> {
        let k = self.index.find(&self.fps, fp)?;
        Some(self.at[k] as usize)
    }

    /// The position `find` gives for the key of the state in `slot`, and its slot (None: no
    /// image).
    #[inline]
    pub fn representative(&self, slot: u32) -> Option<(usize, u32)> {
        let [at, s] = *self.rep_of_slot.get(slot as usize)?;
        (at != NONE && s != NONE).then_some((at as usize, s))
    }

    /// Distinct keys.
    pub fn len(&self) -> usize {
        self.fps.len()
    }

    pub fn is_empty(&self) -> bool {
        self.fps.is_empty()
    }

    /// Heap bytes held.
    pub fn memory(&self) -> u64 {
        self.fps.held() + self.at.held() + self.rep_of_slot.held() + self.index.memory()
    }
}
