//! What a pruning run across a layout change carries into its record: the recorded states
//! below each state it pruned, re-keyed to the new layout, so that the record it writes
//! holds every reachable state (DESIGN.md 5.2's accumulation, when the new version added
//! variables or changed a global channel).
//!
//! Below a pruned state nothing reads or writes the added variables or the changed channels
//! (those statements are dangerous, and the pruned state's set misses them), and no process
//! of a proctype that gained locals is created. So each recorded state below it stands for
//! exactly one new state: its old bytes with the pruned state's extras (`Extension::embed`).

use crate::explore::Fingerprint;
use std::collections::HashMap;

use crate::rmc::diff::extension::Extension;
use crate::rmc::record::graph::{Graph, SeqDecoder, NONE};

/// Distinct extras whose states met are marked in a bitset over the old graph's slots (at
/// most this many such bitsets; the others' in a hash set).
const BITSETS: usize = 64;

/// The pruned states of a run across a layout change, as (old slot, extras).
#[derive(Default)]
pub struct Carry {
    /// Per distinct extras (what a new state adds to its projection): one new canonical
    /// vector that has them (any such vector embeds a recorded one the same way).
    parents: Vec<Vec<u8>>,
    index: HashMap<Vec<u8>, u32>,
    pruned: Vec<(u32, u32)>,
    extras: Vec<u8>,
    /// A pruned state whose extras could not be read (never expected): the record written
    /// would lack its part of the state space.
    pub failed: bool,
}

impl Carry {
    /// The state with new canonical vector `canon` was pruned; its recorded twin is `slot`
    /// of the old graph.
    pub fn pruned(&mut self, ext: &Extension, canon: &[u8], slot: u32) {
        if !ext.extras(canon, &mut self.extras) {
            self.failed = true;
            return;
        }
        let e = match self.index.get(self.extras.as_slice()) {
            Some(&e) => e,
            None => {
                let e = self.parents.len() as u32;
                self.parents.push(canon.to_vec());
                self.index.insert(self.extras.clone(), e);
                e
            }
        };
        self.pruned.push((slot, e));
    }

    /// Calls `each(fingerprint, old slot)` once for every new state below a pruned state
    /// (the pruned states themselves excluded: the search stored them), its fingerprint
    /// made with the new layout's hash. False: the graph or a vector did not fit, and some
    /// states were left out.
    pub fn states(
        &self,
        ext: &Extension,
        g: &Graph,
        layout_hash: u64,
        mut each: impl FnMut(Fingerprint, u32),
    ) -> bool {
        let mut ok = !self.failed;
        // The (old slot, extras) pairs met: a bitset over the slots for each of the first
        // extras, a hash set for the rest, so that a change whose added variables take many
        // values among the pruned states does not allocate a whole-graph bitset per value.
        let mut seen: Vec<Vec<u64>> = vec![Vec::new(); self.parents.len().min(BITSETS)];
        let mut rest: std::collections::HashSet<u64> = Default::default();
        let mut mark = |slot: u32, e: u32| -> bool {
            let Some(bits) = seen.get_mut(e as usize) else {
                return rest.insert(u64::from(e) << 32 | u64::from(slot));
            };
            if bits.is_empty() {
                bits.resize(g.len().div_ceil(64), 0);
            }
            let (w, b) = (slot as usize / 64, 1u64 << (slot % 64));
            let new = bits[w] & b == 0;
            bits[w] |= b;
            new
        };
        // The states below the pruned ones, per extras, over the recorded events.
        // (The pruned states themselves, flagged, were stored by the search.)
        let mut todo: Vec<(u32, u32, bool)> = Vec::new();
        let mut below: Vec<(u32, u32)> = Vec::new();
        let mut blocked = Vec::new();
        for &(slot, e) in &self.pruned {
            if (slot as usize) < g.len() && mark(slot, e) {
                todo.push((slot, e, true));
            }
        }
        while let Some((s, e, pruned)) = todo.pop() {
            let first = todo.len();
            if !pruned {
                below.push((s, e));
            }
            let b = g.events_of(s);
            let mut at = 0;
            while at < b.len() {
                let Some(ev) =
                    crate::rmc::record::graph::decode_event(b, s, &mut at, &mut blocked, Some)
                else {
                    ok = false;
                    break;
                };
                if let Some(leaf) = ev.target() {
                    if leaf != NONE && (leaf as usize) < g.len() && mark(leaf, e) {
                        todo.push((leaf, e, false));
                    }
                }
            }
            // Taken in the recording's order, whose slots ascend: the graph is read mostly
            // in sequence.
            todo[first..].reverse();
        }
        // Their vectors, in slot order: most are a delta against the slot before.
        below.sort_unstable();
        let (mut dec, mut new) = (SeqDecoder::default(), Vec::new());
        let mut plans: HashMap<(u32, u32), Option<crate::rmc::diff::extension::EmbedPlan>> =
            HashMap::new();
        for &(s, e) in &below {
            let Some(last) = dec.decode(g, s) else {
                ok = false;
                continue;
            };
            // One plan per shape and extras: embedding is then a few copies.
            let Some(&shape) = g.shape.get(s as usize) else {
                ok = false;
                continue;
            };
            let plan = plans
                .entry((shape, e))
                .or_insert_with(|| ext.embed_plan(last, &self.parents[e as usize]));
            match plan {
                Some(plan) if plan.apply(last, &mut new) => {
                    each(crate::explore::store::fingerprint(layout_hash, &new), s);
                }
                _ => ok = false,
            }
        }
        ok
    }
}
