//! What a graph being built keeps per slot beside its spans: the interned footprint and
//! shape of the slot's state and whether a state of this run holds the slot. Nine bytes a
//! slot in chunks, where vectors grown by doubling held up to twice that.

use crate::explore::budget::Budget;
use crate::explore::chunked::ChunkedVec;

/// Per chunk, in bytes: small models stay small.
const CHUNK_BYTES: usize = 64 << 10;

/// Not set yet.
const NONE: u32 = u32::MAX;

/// Footprint, shape and liveness by slot.
pub struct SlotTable {
    foot: ChunkedVec<u32>,
    shape: ChunkedVec<u32>,
    live: ChunkedVec<bool>,
}

impl Default for SlotTable {
    fn default() -> SlotTable {
        // The builder charges the run's budget with what it holds (`held`).
        SlotTable {
            foot: ChunkedVec::new(Budget::unlimited(), CHUNK_BYTES),
            shape: ChunkedVec::new(Budget::unlimited(), CHUNK_BYTES),
            live: ChunkedVec::new(Budget::unlimited(), CHUNK_BYTES),
        }
    }
}

impl SlotTable {
    /// An old graph's slots, none of them live yet (None: no memory for them).
    pub fn from_slices(foot: &[u32], shape: &[u32]) -> Option<SlotTable> {
        let mut t = SlotTable::default();
        for (&f, &s) in foot.iter().zip(shape) {
            t.foot.push(f).ok()?;
            t.shape.push(s).ok()?;
            t.live.push(false).ok()?;
        }
        (foot.len() == shape.len()).then_some(t)
    }

    /// A new slot, its footprint and shape not set and nothing in it (None: no memory).
    pub fn push(&mut self) -> Option<u32> {
        let s = self.len() as u32;
        self.foot.push(NONE).ok()?;
        self.shape.push(NONE).ok()?;
        self.live.push(false).ok()?;
        Some(s)
    }

    pub fn len(&self) -> usize {
        self.live.len()
    }

    pub fn foot(&self, s: usize) -> u32 {
        self.foot.get(s)
    }

    pub fn shape(&self, s: usize) -> u32 {
        self.shape.get(s)
    }

    /// Sets slot `s`'s footprint (a slot that exists).
    pub fn set_foot(&mut self, s: usize, f: u32) {
        if s < self.len() {
            *self.foot.get_mut(s) = f;
        }
    }

    pub fn set_shape(&mut self, s: usize, v: u32) {
        if s < self.len() {
            *self.shape.get_mut(s) = v;
        }
    }

    /// Whether a state of this run holds slot `s` (false beyond the table).
    pub fn live(&self, s: usize) -> bool {
        s < self.len() && self.live.get(s)
    }

    pub fn set_live(&mut self, s: usize, l: bool) {
        if s < self.len() {
            *self.live.get_mut(s) = l;
        }
    }

    pub fn lives(&self) -> impl Iterator<Item = bool> + '_ {
        self.live.iter()
    }

    pub fn held(&self) -> u64 {
        self.foot.memory() + self.shape.memory() + self.live.memory()
    }

    /// The footprints and shapes as the finished graph keeps them.
    pub fn to_vecs(&self) -> (Vec<u32>, Vec<u32>) {
        (self.foot.iter().collect(), self.shape.iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_keep_what_is_set_and_start_dead() {
        let mut t = SlotTable::from_slices(&[3, 4], &[5, 6]).expect("memory");
        assert_eq!((t.foot(1), t.shape(1), t.live(1)), (4, 6, false));
        let n = 100_000;
        for i in 2..n {
            assert_eq!(t.push(), Some(i as u32));
            t.set_foot(i, i as u32);
        }
        t.set_live(7, true);
        t.set_shape(n - 1, 9);
        assert!(t.live(7) && !t.live(8) && !t.live(n));
        assert_eq!(
            (t.foot(n - 1), t.shape(n - 1), t.shape(n - 2)),
            (n as u32 - 1, 9, NONE)
        );
        let (f, s) = t.to_vecs();
        assert_eq!((f.len(), s.len(), f[0], s[0]), (n, n, 3, 5));
        assert_eq!(t.lives().filter(|&l| l).count(), 1);
        assert!(t.held() >= 9 * n as u64 && t.held() < 10 * n as u64 + (200 << 10));
    }
}
