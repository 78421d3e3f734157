//! Finding a fingerprint in a record's sorted fingerprints in one or two cache misses: the
//! top bits of a fingerprint (uniformly distributed) pick a bucket, and the bucket's few
//! entries are searched. A binary search over millions of 16-byte entries costs a cache miss
//! per step, on every state a regression run builds. Most of those states are often not in
//! the record (a change that makes much of the state space new): a bitmap of a byte per
//! fingerprint, small enough to stay in the cache, answers most of them without a miss.

use crate::explore::Fingerprint;
/// Bucket starts over a sorted list of fingerprints, and the bitmap of their top bits.
#[derive(Clone, Debug, Default)]
pub struct FpIndex {
    shift: u32,
    /// Index of the first fingerprint of each bucket, and one past the last.
    starts: Vec<u32>,
    /// One bit per value of a fingerprint's top `128 - present_shift` bits: whether a
    /// fingerprint of the list has them (eight bits per fingerprint: one in nine of the
    /// fingerprints not in the list gets past it).
    present: Vec<u64>,
    present_shift: u32,
}

impl FpIndex {
    /// Indexes `fps` (sorted): about two entries per bucket.
    pub fn new(fps: &[Fingerprint]) -> FpIndex {
        let bits = (usize::BITS - (fps.len() / 2).max(1).leading_zeros()).clamp(1, 26);
        let shift = 128 - bits;
        let buckets = 1usize << bits;
        let mut starts = Vec::with_capacity(buckets + 1);
        let mut i = 0;
        for b in 0..buckets {
            while i < fps.len() && ((fps[i].0 >> shift) as usize) < b {
                i += 1;
            }
            starts.push(i as u32);
        }
        starts.push(fps.len() as u32);
        let pbits = (bits + 4).min(32);
        let present_shift = 128 - pbits;
        let mut present = vec![0u64; (1usize << pbits).div_ceil(64)];
        for &f in fps {
            let b = (f.0 >> present_shift) as usize;
            present[b / 64] |= 1 << (b % 64);
        }
        FpIndex {
            shift,
            starts,
            present,
            present_shift,
        }
    }

    /// Heap bytes held.
    pub fn memory(&self) -> u64 {
        use crate::explore::budget::Held;
        self.starts.held() + self.present.held()
    }

    /// The position of `fp` in `fps` (the list this index was made from).
    #[inline]
    pub fn find(&self, fps: &[Fingerprint], fp: Fingerprint) -> Option<usize> {
        let p = (fp.0 >> self.present_shift) as usize;
        if self.present.get(p / 64)? & (1 << (p % 64)) == 0 {
            return None;
        }
        let b = (fp.0 >> self.shift) as usize;
        let (lo, hi) = (
            *self.starts.get(b)? as usize,
            *self.starts.get(b + 1)? as usize,
        );
        let bucket = fps.get(lo..hi)?;
        bucket.iter().position(|&x| x == fp).map(|i| lo + i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_every_fingerprint_and_nothing_else() {
        let mut x = 0x9e37_79b9_7f4a_7c15_u128;
        let mut fps: Vec<Fingerprint> = (0..5000)
            .map(|_| {
                x = x
                    .wrapping_mul(0x2545_f491_4f6c_dd1d_0000_0000_0000_0001)
                    .wrapping_add(7);
                Fingerprint(x ^ (x >> 64))
            })
            .collect();
        fps.sort_unstable();
        fps.dedup();
        let ix = FpIndex::new(&fps);
        for (i, &f) in fps.iter().enumerate() {
            assert_eq!(ix.find(&fps, f), Some(i));
        }
        assert_eq!(ix.find(&fps, Fingerprint(fps[0].0 ^ 1)), None);
        assert_eq!(ix.find(&fps, Fingerprint(u128::MAX)), None);
        let empty = FpIndex::new(&[]);
        assert_eq!(empty.find(&[], Fingerprint(5)), None);
    }
}
