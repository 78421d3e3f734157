//! The byte store of a recorded graph's events and vectors. A record of 10^7 states holds
//! more than a gigabyte of them, so they are never copied on their way through a run: read,
//! they stay in the file's mapping (or buffer) they came from; a graph built on an older one
//! keeps that one's bytes as a part of its own, the new bytes after it, and the record
//! writer writes the parts one after the other. A record written on a base record (an
//! overlay) is read as its base's parts followed by its own, so a replay reads a state's
//! events inside its part (`locate`), never across parts.

use bytes::Bytes;

/// Bytes in parts, one after another; a span never straddles two parts (a state's events
/// and its vector are appended whole).
#[derive(Clone, Debug, Default)]
pub struct Blob {
    parts: Vec<Bytes>,
    len: u64,
}

impl Blob {
    pub fn from_vec(v: Vec<u8>) -> Blob {
        Blob::shared(Bytes::from(v))
    }

    /// Bytes shared with what they were read from.
    pub fn shared(b: Bytes) -> Blob {
        let len = b.len() as u64;
        let parts = if b.is_empty() { Vec::new() } else { vec![b] };
        Blob { parts, len }
    }

    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// `n` bytes at `at`; None when out of range or across two parts (which no writer
    /// makes: a corrupt offset).
    pub fn get(&self, at: u64, n: u32) -> Option<&[u8]> {
        let mut start = 0u64;
        for p in &self.parts {
            let end = start + p.len() as u64;
            if at < end {
                let a = usize::try_from(at - start).ok()?;
                return p.get(a..a.checked_add(n as usize)?);
            }
            start = end;
        }
        // An empty span at the very end.
        (n == 0 && at == self.len).then_some(&[][..])
    }

    /// Where the span `n` bytes at `at` lies: (its part, its offset there); None when out of
    /// range or across two parts. An empty span at the very end lies in the last part.
    pub fn locate(&self, at: u64, n: u32) -> Option<(usize, usize)> {
        if self.parts.is_empty() {
            return (at == 0 && n == 0).then_some((0, 0));
        }
        let mut start = 0u64;
        for (i, p) in self.parts.iter().enumerate() {
            let end = start + p.len() as u64;
            if at < end || (at == end && n == 0 && i + 1 == self.parts.len()) {
                let a = usize::try_from(at - start).ok()?;
                return (a.checked_add(n as usize)? <= p.len()).then_some((i, a));
            }
            start = end;
        }
        None
    }

    /// Part `i`'s bytes (none past the last).
    pub fn part(&self, i: usize) -> &[u8] {
        self.parts.get(i).map_or(&[][..], |p| &p[..])
    }

    /// `more`'s bytes after these (shared, not copied).
    pub fn append(&mut self, more: Blob) {
        self.len += more.len;
        self.parts.extend(more.parts);
    }

    /// The parts in order, for a writer.
    pub fn parts(&self) -> impl Iterator<Item = &[u8]> {
        self.parts.iter().map(|p| &p[..])
    }

    /// Bytes held, for the memory budget (shared ones too: a mapping's pages are resident
    /// once read).
    pub fn held(&self) -> u64 {
        self.len
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_are_found_in_their_part_and_never_across_two() {
        let mut b = Blob::from_vec(vec![1, 2, 3]);
        b.append(Blob::from_vec(vec![4, 5]));
        assert_eq!(b.len(), 5);
        assert_eq!(b.get(0, 3), Some(&[1, 2, 3][..]));
        assert_eq!(b.get(3, 2), Some(&[4, 5][..]));
        assert_eq!(b.get(1, 1), Some(&[2][..]));
        assert_eq!(b.get(2, 2), None, "across the parts");
        assert_eq!(b.get(4, 2), None, "past the end");
        assert_eq!(b.get(5, 0), Some(&[][..]));
        assert_eq!(Blob::default().get(0, 0), Some(&[][..]));
    }

    #[test]
    fn a_span_is_located_in_its_part() {
        let mut b = Blob::from_vec(vec![1, 2, 3]);
        b.append(Blob::from_vec(vec![4, 5]));
        assert_eq!(b.locate(0, 3), Some((0, 0)));
        assert_eq!(b.locate(3, 2), Some((1, 0)));
        assert_eq!(b.locate(4, 1), Some((1, 1)));
        assert_eq!(b.locate(2, 2), None, "across the parts");
        assert_eq!(b.locate(5, 0), Some((1, 2)));
        assert_eq!(b.locate(5, 1), None);
        assert_eq!(b.part(1), &[4, 5][..]);
        assert!(b.part(2).is_empty());
        assert_eq!(Blob::default().locate(0, 0), Some((0, 0)));
    }
}
