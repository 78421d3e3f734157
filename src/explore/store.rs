//! The visited set: an exact open-addressing table over whole state vectors kept back to back
//! in one arena. A state's id is its insertion order, which is also its Tarjan index.

use xxhash_rust::xxh3::xxh3_64;

pub struct Store {
    /// State vectors back to back in fixed-size chunks (a state never straddles two), so
    /// growing never copies and never doubles the memory held.
    chunks: Vec<Vec<u8>>,
    /// Where state i is: chunk (20 bits), offset (24 bits), length (20 bits).
    places: Vec<u64>,
    /// State id + 1 per slot; 0 is empty.
    table: Vec<u32>,
    /// Eight more bits of each slot's hash, so that probing rarely compares vectors that
    /// differ.
    tags: Vec<u8>,
    mask: usize,
}

const CHUNK: usize = 1 << 24;
const LEN_BITS: u32 = 20;
const OFF_BITS: u32 = 24;

impl Default for Store {
    fn default() -> Self {
        Self::new()
    }
}

impl Store {
    pub fn new() -> Store {
        let size = 1 << 16;
        Store {
            chunks: Vec::new(),
            places: Vec::new(),
            table: vec![0; size],
            tags: vec![0; size],
            mask: size - 1,
        }
    }

    pub fn len(&self) -> usize {
        self.places.len()
    }

    pub fn is_empty(&self) -> bool {
        self.places.is_empty()
    }

    #[inline]
    pub fn get(&self, id: u32) -> &[u8] {
        let p = self.places[id as usize];
        let len = (p & ((1 << LEN_BITS) - 1)) as usize;
        let off = ((p >> LEN_BITS) & ((1 << OFF_BITS) - 1)) as usize;
        let chunk = (p >> (LEN_BITS + OFF_BITS)) as usize;
        &self.chunks[chunk][off..off + len]
    }

    /// Bytes held by the store (chunks, index and table).
    pub fn memory(&self) -> usize {
        self.chunks.iter().map(|c| c.capacity()).sum::<usize>()
            + self.places.capacity() * 8
            + self.table.len() * 5
    }

    /// Looks a state up; inserts it when absent. Returns its id and whether it is new.
    /// States are at most 1 MiB (pan's own limit is far lower).
    pub fn insert(&mut self, key: &[u8]) -> (u32, bool) {
        let h = xxh3_64(key);
        let tag = (h >> 56) as u8;
        let mut i = h as usize & self.mask;
        loop {
            let e = self.table[i];
            if e == 0 {
                break;
            }
            if self.tags[i] == tag && self.get(e - 1) == key {
                return (e - 1, false);
            }
            i = (i + 1) & self.mask;
        }
        let id = self.len() as u32;
        let fits = self
            .chunks
            .last()
            .is_some_and(|c| c.len() + key.len() <= c.capacity());
        if !fits {
            // Chunks grow from 64 KiB to 16 MiB, so small models stay small.
            let next = self
                .chunks
                .last()
                .map_or(1 << 16, |c| (c.capacity() * 2).min(CHUNK));
            self.chunks.push(Vec::with_capacity(next.max(key.len())));
        }
        let chunk = self.chunks.len() - 1;
        let c = &mut self.chunks[chunk];
        let off = c.len();
        c.extend_from_slice(key);
        self.places.push(
            ((chunk as u64) << (LEN_BITS + OFF_BITS))
                | ((off as u64) << LEN_BITS)
                | key.len() as u64,
        );
        self.table[i] = id + 1;
        self.tags[i] = tag;
        if self.len() * 10 > self.table.len() * 7 {
            self.grow();
        }
        (id, true)
    }

    fn grow(&mut self) {
        let size = self.table.len() * 2;
        self.table = vec![0; size];
        self.tags = vec![0; size];
        self.mask = size - 1;
        for id in 0..self.len() as u32 {
            let h = xxh3_64(self.get(id));
            let mut i = h as usize & self.mask;
            while self.table[i] != 0 {
                i = (i + 1) & self.mask;
            }
            self.table[i] = id + 1;
            self.tags[i] = (h >> 56) as u8;
        }
    }
}

/// The 128-bit fingerprint of a canonical state vector, seeded with the layout hash so that
/// equal bytes under different layouts never collide by construction.
pub fn fingerprint(layout_hash: u64, key: &[u8]) -> u128 {
    xxhash_rust::xxh3::xxh3_128_with_seed(key, layout_hash)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_finds_and_grows() {
        let mut s = Store::new();
        for i in 0u32..200_000 {
            let (id, new) = s.insert(&i.to_le_bytes());
            assert!(new);
            assert_eq!(id, i);
        }
        for i in 0u32..200_000 {
            assert_eq!(s.insert(&i.to_le_bytes()), (i, false));
        }
        assert_eq!(s.insert(&[1, 2, 3]), (200_000, true));
        assert_eq!(s.get(200_000), &[1, 2, 3]);
    }

    #[test]
    fn fingerprint_depends_on_layout() {
        assert_ne!(fingerprint(1, b"abc"), fingerprint(2, b"abc"));
        assert_eq!(fingerprint(1, b"abc"), fingerprint(1, b"abc"));
    }
}
