//! The visited set: an exact open-addressing table over whole state vectors kept back to back
//! in chunks. A state's id is its insertion order, which is also its Tarjan index. Every byte
//! it holds is taken from the search's memory budget before it is allocated.
//!
//! A slot holds where its vector is (and a few bits of its hash), and the vector is stored
//! after its id: a lookup that matches reads the slot and then the vector, two dependent
//! cache misses, as pan's chained table pays (a slot holding the id paid a third, for the
//! place of the id's vector).

use xxhash_rust::xxh3::xxh3_64;

use super::budget::{Budget, OutOfMemory};
use super::chunked::ChunkedVec;
use super::pages::Pages;

pub struct Store {
    /// State vectors back to back in chunks (a state never straddles two), so growing never
    /// copies and never doubles the memory held.
    chunks: Vec<Vec<u8>>,
    /// Where state i is (`place`, without a tag).
    places: ChunkedVec<u64>,
    /// A `place` per slot (u64), eight bits of its hash on top (`tag_of`), so that probing
    /// rarely compares vectors that differ; 0 is empty.
    table: Pages,
    slots: usize,
    mask: usize,
    budget: Budget,
    chunk_bytes: u64,
}

/// Where `probe` found no state: the free slot, and the tag of the state looked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Vacancy {
    slot: usize,
    /// The tag, in place (`tag_of`).
    tag: u64,
}

const CHUNK: usize = 1 << 24;
const LEN_BITS: u32 = 20;
const OFF_BITS: u32 = 24;
const CHUNK_BITS: u32 = 12;
const TAG_SHIFT: u32 = LEN_BITS + OFF_BITS + CHUNK_BITS;
/// The longest state vector the store keeps (pan's own limit is far lower).
pub const MAX_STATE: usize = (1 << LEN_BITS) - 1;
/// Chunks the store can hold (their number + 1 is kept in `CHUNK_BITS`, so that no place is
/// 0): 64 GiB of vectors.
const MAX_CHUNKS: usize = (1 << CHUNK_BITS) - 2;
/// The bytes of a state's id, stored before its vector.
const ID: usize = 4;
/// Bytes per slot of the table.
const SLOT: usize = 8;

/// Where a vector is: its chunk + 1 (`CHUNK_BITS`), its offset in the chunk (`OFF_BITS`,
/// after its id) and its length (`LEN_BITS`).
#[inline]
fn place(chunk: usize, off: usize, len: usize) -> u64 {
    ((chunk as u64 + 1) << (LEN_BITS + OFF_BITS)) | ((off as u64) << LEN_BITS) | len as u64
}

/// A place's chunk, offset and length (its tag bits ignored).
#[inline]
fn split(p: u64) -> (usize, usize, usize) {
    let len = (p & ((1 << LEN_BITS) - 1)) as usize;
    let off = ((p >> LEN_BITS) & ((1 << OFF_BITS) - 1)) as usize;
    let chunk = ((p >> (LEN_BITS + OFF_BITS)) & ((1 << CHUNK_BITS) - 1)) as usize;
    (chunk.wrapping_sub(1), off, len)
}

/// The tag a hash gives a slot.
#[inline]
fn tag_of(h: u64) -> u64 {
    (h >> 56) << TAG_SHIFT
}

impl Store {
    pub fn new(budget: Budget) -> Result<Store, OutOfMemory> {
        let size = 1 << 16;
        budget.take((size * SLOT) as u64)?;
        Ok(Store {
            chunks: Vec::new(),
            places: ChunkedVec::new(budget.clone(), 1 << 20),
            table: Pages::zeroed(size * SLOT)?,
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
        self.at(self.places.get(id as usize))
    }

    /// The vector at a place (a slot's tag bits ignored).
    #[inline]
    fn at(&self, p: u64) -> &[u8] {
        let (chunk, off, len) = split(p);
        &self.chunks[chunk][off..off + len]
    }

    /// The id stored before the vector at a place.
    #[inline]
    fn id_at(&self, p: u64) -> u32 {
        let (chunk, off, _) = split(p);
        let b = &self.chunks[chunk][off - ID..off];
        u32::from_ne_bytes([b[0], b[1], b[2], b[3]])
    }

    /// Bytes of the table (slots and tags): what a lookup reaches into at random.
    #[inline]
    pub fn table_bytes(&self) -> usize {
        self.slots * SLOT
    }

    /// Bytes held by the store (chunks, index and table).
    pub fn memory(&self) -> u64 {
        self.chunk_bytes + self.places.memory() + (self.slots * SLOT) as u64
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
        self.table.prefetch(i * SLOT);
    }

    /// The bits of a slot a key's tag and length are compared with.
    #[inline]
    fn sel(&self) -> u64 {
        !(((1u64 << (OFF_BITS + CHUNK_BITS)) - 1) << LEN_BITS)
    }

    /// Where a state is: its id, or the empty slot where it would go (for `insert_vacant`,
    /// if nothing is inserted in between).
    #[inline]
    pub fn probe(&self, key: &[u8]) -> Result<u32, Vacancy> {
        let h = xxh3_64(key);
        let tag = tag_of(h);
        // (The tag and the length in one compare.)
        let want = tag | key.len() as u64;
        let sel = self.sel();
        let mut i = h as usize & self.mask;
        loop {
            let e = self.table.u64_at(i);
            if e == 0 {
                return Err(Vacancy { slot: i, tag });
            }
            if e & sel == want && self.at(e) == key {
                return Ok(self.id_at(e));
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
            self.table.u64_at(i),
            0,
            "a vacancy taken since it was found"
        );
        let id = self.len() as u32;
        let fits = self
            .chunks
            .last()
            .is_some_and(|c| c.len() + ID + key.len() <= c.capacity());
        if !fits {
            if self.chunks.len() >= MAX_CHUNKS {
                return Err(OutOfMemory);
            }
            // Chunks grow from 64 KiB to 16 MiB, so small models stay small.
            let next = self
                .chunks
                .last()
                .map_or(1 << 16, |c| (c.capacity() * 2).min(CHUNK))
                .max(ID + key.len());
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
        let off = self.chunks[chunk].len() + ID;
        let p = place(chunk, off, key.len());
        self.places.push(p)?;
        self.chunks[chunk].extend_from_slice(&id.to_ne_bytes());
        self.chunks[chunk].extend_from_slice(key);
        self.table.set_u64(i, p | tag);
        Ok(id)
    }

    /// Empties the store for another search, keeping its table and its first chunk: a run of
    /// many small searches (the rest of a trail from each of 10^5 pruned states) then maps,
    /// faults in and frees no memory per search. When its states are few beside the table,
    /// only their slots are cleared.
    pub fn clear(&mut self) {
        if self.len() * 16 < self.slots {
            for id in 0..self.len() {
                let p = self.places.get(id);
                let h = xxh3_64(self.at(p));
                let mut i = h as usize & self.mask;
                // Its slot lies on from its hash (slots cleared before it are skipped).
                for _ in 0..self.slots {
                    if self.table.u64_at(i) & !(u64::MAX << TAG_SHIFT) == p {
                        self.table.set_u64(i, 0);
                        break;
                    }
                    i = (i + 1) & self.mask;
                }
            }
        } else {
            for i in 0..self.slots {
                self.table.set_u64(i, 0);
            }
        }
        self.places.truncate(0);
        while self.chunks.len() > 1 {
            if let Some(c) = self.chunks.pop() {
                self.chunk_bytes -= c.capacity() as u64;
                self.budget.give(c.capacity() as u64);
            }
        }
        if let Some(c) = self.chunks.first_mut() {
            c.clear();
        }
    }

    /// Doubles the table; the old one is freed after the new one is filled, so both must
    /// fit the budget at once.
    fn grow(&mut self) -> Result<(), OutOfMemory> {
        let size = self.slots * 2;
        self.budget.take((size * SLOT) as u64)?;
        let Ok(table) = Pages::zeroed(size * SLOT) else {
            self.budget.give((size * SLOT) as u64);
            return Err(OutOfMemory);
        };
        let old = (self.slots * SLOT) as u64;
        self.table = table;
        self.slots = size;
        self.budget.give(old);
        self.mask = size - 1;
        for id in 0..self.len() {
            let p = self.places.get(id);
            let h = xxh3_64(self.at(p));
            let mut i = h as usize & self.mask;
            while self.table.u64_at(i) != 0 {
                i = (i + 1) & self.mask;
            }
            self.table.set_u64(i, p | tag_of(h));
        }
        Ok(())
    }
}

impl Drop for Store {
    fn drop(&mut self) {
        self.budget
            .give(self.chunk_bytes + (self.slots * SLOT) as u64);
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

    /// A cleared store holds nothing and gives its budget back down to one chunk, whether
    /// it cleared the few slots its states took or its whole (grown) table.
    #[test]
    fn a_cleared_store_is_empty_and_fills_again() {
        let budget = Budget::unlimited();
        let mut s = Store::new(budget.clone()).unwrap();
        let empty = budget.used();
        for n in [3u32, 300_000, 10, 0, 50_000] {
            for i in 0..n {
                assert_eq!(s.insert(&(i * 7).to_le_bytes()), Ok((i, true)));
            }
            // Another length is another state.
            assert_eq!(s.insert(&[9, 9]), Ok((n, true)));
            assert_eq!(s.insert(&7u32.to_le_bytes()).map(|x| x.1), Ok(n < 2));
            for i in 0..n {
                assert_eq!(s.find(&(i * 7).to_le_bytes()), Some(i));
            }
            s.clear();
            assert_eq!(s.len(), 0);
            for i in 0..n.min(1000) {
                assert_eq!(s.find(&(i * 7).to_le_bytes()), None);
            }
            assert_eq!(s.find(&[9, 9]), None);
            // The table and the index of places as they were; of the vectors, the first chunk.
            let kept = (s.slots * SLOT) as u64 + s.places.memory();
            assert_eq!(budget.used(), kept + (1 << 16));
            assert!(budget.used() >= empty);
        }
    }

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
        // It fills its table of 2^17 slots to seven tenths; doubling it (2 MiB beside the
        // 1 MiB held, the vectors and their places) would pass the budget.
        assert_eq!(n, (1 << 17) * 7 / 10, "{n}");
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
