//! The visited set: an exact open-addressing table over whole state vectors kept back to back
//! in chunks. A state's id is its insertion order, which is also its Tarjan index. Every byte
//! it holds is taken from the search's memory budget before it is allocated.

use xxhash_rust::xxh3::xxh3_64;

use super::budget::{Budget, OutOfMemory};
use super::chunked::ChunkedVec;
use super::pages::Pages;

pub struct Store {
    /// State vectors back to back in chunks (a state never straddles two), so growing never
    /// copies and never doubles the memory held.
    chunks: Vec<Vec<u8>>,
    /// Where state i is: chunk (20 bits), offset (24 bits), length (20 bits).
    places: ChunkedVec<u64>,
    /// State id + 1 per slot (u32); 0 is empty.
    table: Pages,
    /// Eight more bits of each slot's hash, so that probing rarely compares vectors that
    /// differ.
    tags: Pages,
    slots: usize,
    mask: usize,
    budget: Budget,
    chunk_bytes: u64,
}

/// Where `probe` found no state: the free slot, and the tag of the state looked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Vacancy {
    slot: usize,
    tag: u8,
}

const CHUNK: usize = 1 << 24;
const LEN_BITS: u32 = 20;
const OFF_BITS: u32 = 24;
/// The longest state vector the store keeps (pan's own limit is far lower).
pub const MAX_STATE: usize = (1 << LEN_BITS) - 1;

impl Store {
    pub fn new(budget: Budget) -> Result<Store, OutOfMemory> {
        let size = 1 << 16;
        budget.take(size as u64 * 5)?;
        Ok(Store {
            chunks: Vec::new(),
            places: ChunkedVec::new(budget.clone(), 1 << 20),
            table: Pages::zeroed(size * 4)?,
            tags: Pages::zeroed(size)?,
            slots: size,
            mask: size - 1,
            budget,
            chunk_bytes: 0,
        })
    }

    pub fn len(&self) -> usize {
        self.places.len()
    }

    #[inline]
    pub fn get(&self, id: u32) -> &[u8] {
        let p = self.places.get(id as usize);
        let len = (p & ((1 << LEN_BITS) - 1)) as usize;
        let off = ((p >> LEN_BITS) & ((1 << OFF_BITS) - 1)) as usize;
        let chunk = (p >> (LEN_BITS + OFF_BITS)) as usize;
        &self.chunks[chunk][off..off + len]
    }

    /// Bytes of the table (slots and tags): what a lookup reaches into at random.
    #[inline]
    pub fn table_bytes(&self) -> usize {
        self.slots * 5
    }

    /// Bytes held by the store (chunks, index and table).
    pub fn memory(&self) -> u64 {
        self.chunk_bytes + self.places.memory() + self.slots as u64 * 5
    }

    /// The id of a state stored already.
    #[cfg(test)]
    pub fn find(&self, key: &[u8]) -> Option<u32> {
        self.probe(key).ok()
    }

    /// Starts bringing in the table slot `key` will be looked up in, for a `probe` of it
    /// a little later: the slot is the one cache miss nearly every lookup pays, and
    /// overlapping it with building the next successor hides much of it.
    #[inline]
    pub fn prefetch(&self, key: &[u8]) {
        let i = xxh3_64(key) as usize & self.mask;
        self.table.prefetch(i * 4);
        self.tags.prefetch(i);
    }

    /// Where a state is: its id, or the empty slot where it would go (for `insert_vacant`,
    /// if nothing is inserted in between).
    #[inline]
    pub fn probe(&self, key: &[u8]) -> Result<u32, Vacancy> {
        let h = xxh3_64(key);
        let tag = (h >> 56) as u8;
        let mut i = h as usize & self.mask;
        loop {
            let e = self.table.u32_at(i);
            if e == 0 {
                return Err(Vacancy { slot: i, tag });
            }
            if self.tags.u8_at(i) == tag && self.get(e - 1) == key {
                return Ok(e - 1);
            }
            i = (i + 1) & self.mask;
        }
    }

    /// Looks a state up; inserts it when absent. Returns its id and whether it is new, or
    /// OutOfMemory when storing it would pass the budget.
    pub fn insert(&mut self, key: &[u8]) -> Result<(u32, bool), OutOfMemory> {
        match self.probe(key) {
            Ok(id) => Ok((id, false)),
            Err(v) => Ok((self.insert_vacant(key, v)?, true)),
        }
    }

    /// Stores a state that `probe` did not find (nothing inserted since), in the slot it
    /// found free. Returns its id.
    pub fn insert_vacant(&mut self, key: &[u8], v: Vacancy) -> Result<u32, OutOfMemory> {
        if key.len() > MAX_STATE {
            return Err(OutOfMemory);
        }
        if (self.len() + 1) * 10 > self.slots * 7 {
            self.grow()?;
            return match self.probe(key) {
                Ok(id) => Ok(id),
                Err(v) => self.insert_vacant(key, v),
            };
        }
        let Vacancy { slot: i, tag } = v;
        debug_assert_eq!(
            self.table.u32_at(i),
            0,
            "a vacancy taken since it was found"
        );
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
                .map_or(1 << 16, |c| (c.capacity() * 2).min(CHUNK))
                .max(key.len());
            self.budget.take(next as u64)?;
            let mut c = Vec::new();
            if c.try_reserve_exact(next).is_err() {
                self.budget.give(next as u64);
                return Err(OutOfMemory);
            }
            self.chunk_bytes += next as u64;
            self.chunks.push(c);
        }
        let chunk = self.chunks.len() - 1;
        let off = self.chunks[chunk].len();
        self.places.push(
            ((chunk as u64) << (LEN_BITS + OFF_BITS))
                | ((off as u64) << LEN_BITS)
                | key.len() as u64,
        )?;
        self.chunks[chunk].extend_from_slice(key);
        self.table.set_u32(i, id + 1);
        self.tags.set_u8(i, tag);
        Ok(id)
    }

    /// Doubles the table; the old one is freed after the new one is filled, so both must
    /// fit the budget at once.
    fn grow(&mut self) -> Result<(), OutOfMemory> {
        let size = self.slots * 2;
        self.budget.take(size as u64 * 5)?;
        let (table, tags) = match (Pages::zeroed(size * 4), Pages::zeroed(size)) {
            (Ok(t), Ok(g)) => (t, g),
            _ => {
                self.budget.give(size as u64 * 5);
                return Err(OutOfMemory);
            }
        };
        let old = self.slots as u64 * 5;
        self.table = table;
        self.tags = tags;
        self.slots = size;
        self.budget.give(old);
        self.mask = size - 1;
        for id in 0..self.len() as u32 {
            let h = xxh3_64(self.get(id));
            let mut i = h as usize & self.mask;
            while self.table.u32_at(i) != 0 {
                i = (i + 1) & self.mask;
            }
            self.table.set_u32(i, id + 1);
            self.tags.set_u8(i, (h >> 56) as u8);
        }
        Ok(())
    }
}

impl Drop for Store {
    fn drop(&mut self) {
        self.budget.give(self.chunk_bytes + self.slots as u64 * 5);
    }
}

/// A state's fingerprint: a 128-bit hash of its canonical bytes, seeded with its layout's
/// hash (DESIGN.md 4). Records are keyed and sorted by it.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Fingerprint(pub u128);

impl std::fmt::LowerHex for Fingerprint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::LowerHex::fmt(&self.0, f)
    }
}

impl Fingerprint {
    /// Its top `bits` bits (fingerprints are uniformly distributed: a bucket).
    #[inline]
    pub fn top(self, bits: u32) -> usize {
        (self.0 >> (128 - bits)) as usize
    }
}

/// The low bits a fingerprint leaves zero: it keeps 96 bits. Fingerprints only name
/// recorded states across versions (a search stores whole vectors), and two of 10^8
/// recorded states share 96 bits with a chance near 6 in 10^14, while the 4 bytes a state
/// they save are a sixth of a record on disk.
pub const FINGERPRINT_DROPPED_BITS: u32 = 32;

impl Fingerprint {
    /// The fingerprint as this version keeps it: its low `FINGERPRINT_DROPPED_BITS` bits
    /// zero (a record written when fingerprints kept 128 bits reads back this way).
    #[inline]
    pub fn kept(self) -> Fingerprint {
        Fingerprint(self.0 & !((1u128 << FINGERPRINT_DROPPED_BITS) - 1))
    }

    /// The bits a kept fingerprint has, in twelve bytes (a run holds one per state).
    #[inline]
    pub fn kept_words(self) -> [u32; 3] {
        let x = self.0 >> FINGERPRINT_DROPPED_BITS;
        [x as u32, (x >> 32) as u32, (x >> 64) as u32]
    }

    /// The kept fingerprint `kept_words` gave.
    #[inline]
    pub fn from_kept_words([a, b, c]: [u32; 3]) -> Fingerprint {
        let x = a as u128 | (b as u128) << 32 | (c as u128) << 64;
        Fingerprint(x << FINGERPRINT_DROPPED_BITS)
    }
}

/// The fingerprint of a canonical state vector, seeded with the layout hash so that equal
/// bytes under different layouts never collide by construction.
pub fn fingerprint(layout_hash: u64, key: &[u8]) -> Fingerprint {
    Fingerprint(xxhash_rust::xxh3::xxh3_128_with_seed(key, layout_hash)).kept()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_finds_and_grows() {
        let mut s = Store::new(Budget::unlimited()).unwrap();
        for i in 0u32..200_000 {
            let (id, new) = s.insert(&i.to_le_bytes()).unwrap();
            assert!(new);
            assert_eq!(id, i);
        }
        for i in 0u32..200_000 {
            assert_eq!(s.insert(&i.to_le_bytes()), Ok((i, false)));
        }
        assert_eq!(s.insert(&[1, 2, 3]), Ok((200_000, true)));
        assert_eq!(s.get(200_000), &[1, 2, 3]);
    }

    #[test]
    fn inserts_where_the_probe_found_room() {
        let mut s = Store::new(Budget::unlimited()).unwrap();
        // Across the table's growth too.
        for i in 0u32..100_000 {
            let key = i.to_le_bytes();
            let v = s.probe(&key).expect_err("not stored yet");
            assert_eq!(s.insert_vacant(&key, v), Ok(i));
            assert_eq!(s.probe(&key), Ok(i));
        }
        for i in 0u32..100_000 {
            assert_eq!(s.find(&i.to_le_bytes()), Some(i));
        }
    }

    #[test]
    fn stops_at_the_budget_and_gives_back_on_drop() {
        let b = Budget::new(Some(4 << 20));
        let mut s = Store::new(b.clone()).unwrap();
        let mut n = 0u32;
        while s.insert(&n.to_le_bytes()).is_ok() {
            n += 1;
        }
        assert!(n > 100_000, "{n}");
        assert!(b.used() <= 4 << 20);
        assert_eq!(b.used(), s.memory());
        drop(s);
        assert_eq!(b.used(), 0);
    }

    #[test]
    fn a_kept_fingerprint_fits_twelve_bytes() {
        let f = fingerprint(7, b"a state");
        assert_eq!(Fingerprint::from_kept_words(f.kept_words()), f);
        let top = Fingerprint(u128::MAX).kept();
        assert_eq!(Fingerprint::from_kept_words(top.kept_words()), top);
    }

    #[test]
    fn fingerprint_depends_on_layout() {
        assert_ne!(fingerprint(1, b"abc"), fingerprint(2, b"abc"));
        assert_eq!(fingerprint(1, b"abc"), fingerprint(1, b"abc"));
    }
}
