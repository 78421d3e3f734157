//! Where each slot's events and vector lie, as a graph holds them (being built, finished or
//! read): eight bytes a slot in chunks (a 40-bit offset and a 24-bit length), where a vector
//! of `(u64, u32)` pairs takes sixteen and, grown by doubling, up to twice that. A span that
//! does not fit (an offset past a terabyte, a state's events past 16 MB) is kept aside. With
//! the events themselves compressed (`spill`), these are most of what a recording run holds
//! per state beyond the visited set, and a finished graph takes them over as they are.

use std::collections::HashMap;

use crate::explore::budget::Budget;
use crate::explore::chunked::ChunkedVec;

/// Spans per chunk, in bytes: small models stay small.
const CHUNK_BYTES: usize = 128 << 10;

const LEN_BITS: u32 = 24;
const AT_BITS: u32 = 64 - LEN_BITS;
/// A slot whose span is kept aside (`Spans::wide`); no packed span has these bits.
const WIDE: u64 = u64::MAX;

/// A table of (offset, length) spans indexed by slot.
pub struct Spans {
    packed: ChunkedVec<u64>,
    wide: HashMap<usize, (u64, u32)>,
}

impl Default for Spans {
    fn default() -> Spans {
        // The builder charges the run's budget with what it holds (`held`).
        Spans {
            packed: ChunkedVec::new(Budget::unlimited(), CHUNK_BYTES),
            wide: HashMap::new(),
        }
    }
}

/// A span in eight bytes, if it fits (the largest length is left for `WIDE`).
#[inline]
fn pack((at, n): (u64, u32)) -> Option<u64> {
    (at < 1 << AT_BITS && u64::from(n) < (1 << LEN_BITS) - 1)
        .then_some(at << LEN_BITS | u64::from(n))
}

#[inline]
fn unpack(p: u64) -> (u64, u32) {
    (p >> LEN_BITS, (p & ((1 << LEN_BITS) - 1)) as u32)
}

impl Spans {
    pub fn from_slice(v: &[(u64, u32)]) -> Option<Spans> {
        let mut s = Spans::default();
        for &x in v {
            s.push(x)?;
        }
        Some(s)
    }

    /// Appends a span (None: no memory for it).
    pub fn push(&mut self, s: (u64, u32)) -> Option<()> {
        match pack(s) {
            Some(p) => self.packed.push(p).ok(),
            None => {
                self.wide.insert(self.packed.len(), s);
                self.packed.push(WIDE).ok()
            }
        }
    }

    pub fn len(&self) -> usize {
        self.packed.len()
    }

    pub fn get(&self, i: usize) -> Option<(u64, u32)> {
        (i < self.packed.len()).then(|| self.at(i))
    }

    /// Slot `i`'s span (one that exists: a graph's tables are validated against each other
    /// when it is read).
    #[inline]
    pub fn at(&self, i: usize) -> (u64, u32) {
        match self.packed.get(i) {
            WIDE => self.wide.get(&i).copied().unwrap_or_default(),
            p => unpack(p),
        }
    }

    /// Sets slot `i`'s span (one that exists).
    pub fn set(&mut self, i: usize, s: (u64, u32)) {
        if i >= self.packed.len() {
            return;
        }
        let p = match pack(s) {
            Some(p) => {
                self.wide.remove(&i);
                p
            }
            None => {
                self.wide.insert(i, s);
                WIDE
            }
        };
        *self.packed.get_mut(i) = p;
    }

    pub fn held(&self) -> u64 {
        // (A map entry's key, span and control byte, at least.)
        self.packed.memory() + self.wide.capacity() as u64 * 25
    }

    pub fn iter(&self) -> impl Iterator<Item = (u64, u32)> + '_ {
        (0..self.len()).map(|i| self.at(i))
    }

    /// The spans as a list.
    pub fn to_vec(&self) -> Vec<(u64, u32)> {
        self.iter().collect()
    }

    /// A copy (None: no memory for it).
    pub fn try_clone(&self) -> Option<Spans> {
        let mut s = Spans::default();
        for x in self.iter() {
            s.push(x)?;
        }
        Some(s)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Clone for Spans {
    /// A copy, for a graph cloned whole (tests and tools; a run's builder copies an old
    /// graph's spans with `try_clone`). Empty only where memory ran out, and a graph with
    /// an empty table fails validation.
    fn clone(&self) -> Spans {
        self.try_clone().unwrap_or_default()
    }
}

impl std::fmt::Debug for Spans {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Spans({} spans)", self.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_keep_every_offset_and_length_in_eight_bytes_or_aside() {
        let mut s = Spans::default();
        let n = 100_000u64;
        for i in 0..n {
            // Offsets past four gigabytes, lengths past 65,535.
            s.push((i << 20, (i as u32) << 7)).expect("memory");
        }
        // Past a terabyte, or past 16 MB of events: kept aside, and back in place.
        let wide = [(u64::MAX - 3, u32::MAX), (1 << 40, 1), (5, (1 << 24) - 1)];
        for (k, &w) in wide.iter().enumerate() {
            s.set(7 + k, w);
        }
        s.push(wide[0]).expect("memory");
        assert_eq!(s.len(), n as usize + 1);
        for (k, &w) in wide.iter().enumerate() {
            assert_eq!(s.get(7 + k), Some(w));
        }
        assert_eq!(s.get(n as usize), Some(wide[0]));
        assert_eq!(s.get(6), Some((6 << 20, 6 << 7)));
        assert_eq!(s.get(99_999), Some((99_999 << 20, 99_999 << 7)));
        assert_eq!(s.get(n as usize + 1), None);
        s.set(8, (1 << 39, (1 << 24) - 2));
        assert_eq!(s.get(8), Some((1 << 39, (1 << 24) - 2)));
        assert!(
            s.held() <= n * 8 + CHUNK_BYTES as u64 + 1000,
            "{}",
            s.held()
        );
        assert_eq!(s.to_vec().len(), n as usize + 1);
        assert_eq!(
            Spans::from_slice(&s.to_vec()).map(|t| t.to_vec()),
            Some(s.to_vec())
        );
        assert_eq!(s.try_clone().map(|t| t.to_vec()), Some(s.to_vec()));
    }
}
