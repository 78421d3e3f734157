//! The visited set: an exact open-addressing table over whole state vectors kept back to back
//! in one arena. A state's id is its insertion order, which is also its Tarjan index.

use xxhash_rust::xxh3::xxh3_64;

pub struct Store {
    arena: Vec<u8>,
    /// Start of each state in the arena; state i spans `starts[i]..starts[i + 1]`.
    starts: Vec<u64>,
    /// State id + 1 per slot; 0 is empty.
    table: Vec<u32>,
    mask: usize,
}

impl Default for Store {
    fn default() -> Self {
        Self::new()
    }
}

impl Store {
    pub fn new() -> Store {
        let size = 1 << 16;
        Store {
            arena: Vec::new(),
            starts: vec![0],
            table: vec![0; size],
            mask: size - 1,
        }
    }

    pub fn len(&self) -> usize {
        self.starts.len() - 1
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn get(&self, id: u32) -> &[u8] {
        let i = id as usize;
        &self.arena[self.starts[i] as usize..self.starts[i + 1] as usize]
    }

    /// Bytes held by the store (arena, index and table).
    pub fn memory(&self) -> usize {
        self.arena.capacity() + self.starts.capacity() * 8 + self.table.len() * 4
    }

    /// Looks a state up; inserts it when absent. Returns its id and whether it is new.
    pub fn insert(&mut self, key: &[u8]) -> (u32, bool) {
        let mut i = xxh3_64(key) as usize & self.mask;
        loop {
            let e = self.table[i];
            if e == 0 {
                break;
            }
            if self.get(e - 1) == key {
                return (e - 1, false);
            }
            i = (i + 1) & self.mask;
        }
        let id = self.len() as u32;
        self.arena.extend_from_slice(key);
        self.starts.push(self.arena.len() as u64);
        self.table[i] = id + 1;
        if self.len() * 10 > self.table.len() * 7 {
            self.grow();
        }
        (id, true)
    }

    fn grow(&mut self) {
        let size = self.table.len() * 2;
        self.table = vec![0; size];
        self.mask = size - 1;
        for id in 0..self.len() as u32 {
            let mut i = xxh3_64(self.get(id)) as usize & self.mask;
            while self.table[i] != 0 {
                i = (i + 1) & self.mask;
            }
            self.table[i] = id + 1;
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
