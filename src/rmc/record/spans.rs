//! Where each slot's events and vector lie, as a graph holds them (being built, finished or
//! read): twelve bytes a slot in chunks, where a vector of `(u64, u32)` pairs takes sixteen
//! and, grown by doubling, up to twice that. With the events themselves compressed
//! (`spill`), these are most of what a recording run holds per state beyond the visited
//! set, and a finished graph takes them over as they are.

use crate::explore::budget::Budget;
use crate::explore::chunked::ChunkedVec;

/// Spans per chunk, in bytes: small models stay small.
const CHUNK_BYTES: usize = 192 << 10;

/// A table of (offset, length) spans indexed by slot.
pub struct Spans(ChunkedVec<[u32; 3]>);

impl Default for Spans {
    fn default() -> Spans {
        // The builder charges the run's budget with what it holds (`held`).
        Spans(ChunkedVec::new(Budget::unlimited(), CHUNK_BYTES))
    }
}

fn pack((at, n): (u64, u32)) -> [u32; 3] {
    [at as u32, (at >> 32) as u32, n]
}

fn unpack([lo, hi, n]: [u32; 3]) -> (u64, u32) {
    (lo as u64 | (hi as u64) << 32, n)
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
        self.0.push(pack(s)).ok()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn get(&self, i: usize) -> Option<(u64, u32)> {
        (i < self.0.len()).then(|| unpack(self.0.get(i)))
    }

    /// Slot `i`'s span (one that exists: a graph's tables are validated against each other
    /// when it is read).
    #[inline]
    pub fn at(&self, i: usize) -> (u64, u32) {
        unpack(self.0.get(i))
    }

    /// Sets slot `i`'s span (one that exists).
    pub fn set(&mut self, i: usize, s: (u64, u32)) {
        if i < self.0.len() {
            *self.0.get_mut(i) = pack(s);
        }
    }

    pub fn held(&self) -> u64 {
        self.0.memory()
    }

    pub fn iter(&self) -> impl Iterator<Item = (u64, u32)> + '_ {
        self.0.iter().map(unpack)
    }

    /// The spans as a list.
    pub fn to_vec(&self) -> Vec<(u64, u32)> {
        self.iter().collect()
    }
}

impl Spans {
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
    /// graph's spans with `try_clone`). Short only where memory ran out, and a graph with a
    /// short table fails validation.
    fn clone(&self) -> Spans {
        let mut s = Spans::default();
        for x in self.iter() {
            if s.push(x).is_none() {
                break;
            }
        }
        s
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
    fn spans_keep_offsets_past_four_gigabytes() {
        let mut s = Spans::default();
        let n = 100_000u64;
        for i in 0..n {
            s.push((i << 20, i as u32)).expect("memory");
        }
        s.set(7, (u64::MAX - 3, u32::MAX));
        assert_eq!(s.len(), n as usize);
        assert_eq!(s.get(7), Some((u64::MAX - 3, u32::MAX)));
        assert_eq!(s.get(99_999), Some((99_999 << 20, 99_999)));
        assert_eq!(s.get(n as usize), None);
        assert!(s.held() <= n * 12 + CHUNK_BYTES as u64, "{}", s.held());
        assert_eq!(s.to_vec().len(), n as usize);
        assert_eq!(
            Spans::from_slice(&s.to_vec()).map(|t| t.to_vec()),
            Some(s.to_vec())
        );
    }
}
