//! The bytes a graph being built appends (its events and vectors), held compressed while the
//! search runs. Nothing reads them before the search is over, and then they are wanted whole
//! and in the order they came; meanwhile they would be most of what a recording run holds
//! beyond a plain check (on ring_election N=9, 41 MB of events and 13 MB of vectors beside a
//! 112 MB visited set). So every `BLOCK` bytes appended are compressed (zstd, one of its
//! fast levels: the record's own compression runs later, on the whole), and `into_vec` gives the
//! stream back in one piece.

/// Bytes appended before they are compressed into a block: the tail a stream holds
/// uncompressed, twice per run (events and vectors).
const BLOCK: usize = 1 << 18;

/// zstd's level for the blocks: speed first (they are decompressed once, when the record
/// is assembled), on the book's thread beside the search.
const LEVEL: i32 = -3;

/// An append-only byte stream: compressed blocks, then the tail still being appended to.
#[derive(Default)]
pub struct Spill {
    /// Each block's compressed bytes and its length before compression.
    blocks: Vec<(Vec<u8>, u32)>,
    /// Bytes in the blocks, before compression.
    blocked: u64,
    /// Bytes appended since the last block.
    pub tail: Vec<u8>,
    /// Bytes the blocks hold.
    compressed: u64,
    /// A block failed to compress: the stream keeps its bytes as they are from then on.
    plain: bool,
}

impl Spill {
    /// Bytes appended so far.
    pub fn len(&self) -> u64 {
        self.blocked + self.tail.len() as u64
    }

    /// Heap bytes held.
    pub fn held(&self) -> u64 {
        self.compressed
            + (self.blocks.capacity() * std::mem::size_of::<(Vec<u8>, u32)>()) as u64
            + self.tail.capacity() as u64
    }

    /// Compresses the tail into a block once it is a block long (called after appending).
    pub fn settle(&mut self) {
        if self.tail.len() < BLOCK || self.plain {
            return;
        }
        match zstd::bulk::compress(&self.tail, LEVEL) {
            Ok(mut z) => {
                // (Made with room for the worst case: the block keeps what it uses.)
                z.shrink_to_fit();
                let n = self.tail.len();
                self.compressed += z.capacity() as u64;
                self.blocked += n as u64;
                self.blocks.push((z, n as u32));
                // The tail's room is reused, less what a state's events that overran a
                // block grew it by.
                self.tail.clear();
                self.tail.shrink_to(BLOCK + BLOCK / 8);
            }
            Err(_) => self.plain = true,
        }
    }

    /// The bytes appended, in order (None: a block does not decompress, which only
    /// corrupt memory could make).
    pub fn into_vec(self) -> Option<Vec<u8>> {
        let mut out = Vec::new();
        if out.try_reserve_exact(self.len() as usize).is_err() {
            return None;
        }
        for (z, n) in self.blocks {
            let raw = zstd::bulk::decompress(&z, n as usize).ok()?;
            if raw.len() != n as usize {
                return None;
            }
            out.extend_from_slice(&raw);
        }
        out.extend_from_slice(&self.tail);
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gives_back_what_was_appended_across_blocks() {
        let mut s = Spill::default();
        let mut want = Vec::new();
        let mut x = 7u32;
        for i in 0..(3 * BLOCK + 12345) {
            // Bytes that compress somewhat, as events do.
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            let b = if i % 50 == 0 {
                (x >> 24) as u8
            } else {
                (i % 7) as u8
            };
            s.tail.push(b);
            want.push(b);
            if i % 1000 == 0 {
                s.settle();
            }
            assert_eq!(s.len(), want.len() as u64);
        }
        s.settle();
        let tail = s.tail.capacity() as u64;
        assert!(tail <= 2 * BLOCK as u64, "{tail}");
        assert!(s.held() - tail < want.len() as u64 / 4, "{} held", s.held());
        assert_eq!(s.into_vec(), Some(want));
        assert_eq!(Spill::default().into_vec(), Some(Vec::new()));
    }
}
