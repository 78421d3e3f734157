//! Storage that grows in bounded steps: a vector of fixed-size chunks and a stack of byte
//! strings in chunks. Growing never copies what is stored and never asks for one block larger
//! than a chunk, and every chunk is taken from the search's memory budget first, so a deep
//! search costs per level what a shallow one does.

use super::budget::{Budget, OutOfMemory};

/// An append-and-truncate vector of `Copy` elements in chunks of `1 << shift` elements.
pub struct ChunkedVec<T> {
    chunks: Vec<Vec<T>>,
    len: usize,
    shift: u32,
    budget: Budget,
}

impl<T: Copy> ChunkedVec<T> {
    /// Chunks of about `chunk_bytes` bytes (rounded to a power of two of elements).
    pub fn new(budget: Budget, chunk_bytes: usize) -> Self {
        let per = (chunk_bytes / std::mem::size_of::<T>().max(1)).max(1);
        let shift = usize::BITS - 1 - per.leading_zeros();
        ChunkedVec {
            chunks: Vec::new(),
            len: 0,
            shift,
            budget,
        }
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn chunk_len(&self) -> usize {
        1 << self.shift
    }

    fn chunk_bytes(&self) -> u64 {
        (self.chunk_len() * std::mem::size_of::<T>()) as u64
    }

    // Inlined whole, with the growth kept out of line: on the search's hot path (frames,
    // trail steps) the push is then a store into the last chunk.
    #[inline(always)]
    pub fn push(&mut self, v: T) -> Result<(), OutOfMemory> {
        let c = self.len >> self.shift;
        if c == self.chunks.len() {
            self.grow()?;
        }
        self.chunks[c].push(v);
        self.len += 1;
        Ok(())
    }

    /// Adds a chunk, within the budget.
    #[cold]
    #[inline(never)]
    fn grow(&mut self) -> Result<(), OutOfMemory> {
        self.budget.take(self.chunk_bytes())?;
        let mut chunk = Vec::new();
        if chunk.try_reserve_exact(self.chunk_len()).is_err() {
            self.budget.give(self.chunk_bytes());
            return Err(OutOfMemory);
        }
        self.chunks.push(chunk);
        Ok(())
    }

    #[inline]
    pub fn get(&self, i: usize) -> T {
        self.chunks[i >> self.shift][i & (self.chunk_len() - 1)]
    }

    #[inline]
    pub fn get_ref(&self, i: usize) -> &T {
        &self.chunks[i >> self.shift][i & (self.chunk_len() - 1)]
    }

    #[inline]
    pub fn get_mut(&mut self, i: usize) -> &mut T {
        let mask = self.chunk_len() - 1;
        &mut self.chunks[i >> self.shift][i & mask]
    }

    pub fn last(&self) -> Option<T> {
        self.len.checked_sub(1).map(|i| self.get(i))
    }

    pub fn last_mut(&mut self) -> Option<&mut T> {
        let i = self.len.checked_sub(1)?;
        Some(self.get_mut(i))
    }

    #[inline]
    pub fn pop(&mut self) -> Option<T> {
        let i = self.len.checked_sub(1)?;
        let c = i >> self.shift;
        let v = self.chunks[c].pop();
        self.len = i;
        if i & (self.chunk_len() - 1) == 0 {
            self.release();
        }
        v
    }

    /// Shortens the vector to `n` elements.
    pub fn truncate(&mut self, n: usize) {
        while self.len > n {
            let c = (self.len - 1) >> self.shift;
            let keep = n.saturating_sub(c << self.shift);
            self.chunks[c].truncate(keep);
            self.len = (c << self.shift) + self.chunks[c].len();
        }
        self.release();
    }

    /// Frees empty chunks beyond the last one in use, keeping one spare so that a search
    /// going up and down across a chunk boundary does not allocate each time.
    fn release(&mut self) {
        let in_use = self.len.div_ceil(self.chunk_len());
        while self.chunks.len() > in_use + 1 {
            self.chunks.pop();
            self.budget.give(self.chunk_bytes());
        }
    }

    /// Bytes held.
    pub fn memory(&self) -> u64 {
        self.chunks.len() as u64 * self.chunk_bytes()
    }

    pub fn iter(&self) -> impl Iterator<Item = T> + '_ {
        self.chunks.iter().flat_map(|c| c.iter().copied())
    }
}

impl<T> Drop for ChunkedVec<T> {
    fn drop(&mut self) {
        let bytes = (self.chunks.len() << self.shift) * std::mem::size_of::<T>();
        self.budget.give(bytes as u64);
    }
}

/// A stack of byte strings kept back to back in chunks (a string never straddles two).
pub struct ByteStack {
    chunks: Vec<Vec<u8>>,
    chunk: usize,
    budget: Budget,
    held: u64,
}

/// Where a string of a `ByteStack` starts: chunk index and offset.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pos {
    chunk: u32,
    offset: u32,
}

impl ByteStack {
    pub fn new(budget: Budget, chunk: usize) -> ByteStack {
        ByteStack {
            chunks: Vec::new(),
            chunk,
            budget,
            held: 0,
        }
    }

    /// Pushes a string; returns where it starts.
    pub fn push(&mut self, bytes: &[u8]) -> Result<Pos, OutOfMemory> {
        let fits = self
            .chunks
            .last()
            .is_some_and(|c| c.len() + bytes.len() <= c.capacity());
        if !fits {
            // A chunk that is empty but too small for this string is replaced.
            if self.chunks.last().is_some_and(|c| c.is_empty()) {
                let c = self.chunks.pop().map_or(0, |c| c.capacity());
                self.held -= c as u64;
                self.budget.give(c as u64);
            }
            let size = self.chunk.max(bytes.len());
            self.budget.take(size as u64)?;
            let mut c = Vec::new();
            if c.try_reserve_exact(size).is_err() {
                self.budget.give(size as u64);
                return Err(OutOfMemory);
            }
            self.held += size as u64;
            self.chunks.push(c);
        }
        let chunk = self.chunks.len() - 1;
        let c = &mut self.chunks[chunk];
        let offset = c.len();
        c.extend_from_slice(bytes);
        Ok(Pos {
            chunk: chunk as u32,
            offset: offset as u32,
        })
    }

    /// Where the next string would start (a string pushed there would be empty): a frame
    /// that keeps nothing on the stack marks its place without a push.
    #[inline]
    pub fn end(&self) -> Pos {
        match self.chunks.len().checked_sub(1) {
            Some(c) => Pos {
                chunk: c as u32,
                offset: self.chunks[c].len() as u32,
            },
            None => Pos::default(),
        }
    }

    #[inline]
    pub fn get(&self, at: Pos, len: usize) -> &[u8] {
        let o = at.offset as usize;
        &self.chunks[at.chunk as usize][o..o + len]
    }

    /// Drops the string at `at` and everything pushed after it.
    pub fn truncate(&mut self, at: Pos) {
        let c = at.chunk as usize;
        if c >= self.chunks.len() {
            return;
        }
        self.chunks[c].truncate(at.offset as usize);
        // Keep one spare chunk after the one in use.
        while self.chunks.len() > c + 2 {
            if let Some(x) = self.chunks.pop() {
                self.held -= x.capacity() as u64;
                self.budget.give(x.capacity() as u64);
            }
        }
        if let Some(x) = self.chunks.get_mut(c + 1) {
            x.clear();
        }
    }

    #[cfg(test)]
    pub fn memory(&self) -> u64 {
        self.held
    }
}

impl Drop for ByteStack {
    fn drop(&mut self) {
        self.budget.give(self.held);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunked_vec_pushes_pops_and_truncates_across_chunks() {
        let b = Budget::unlimited();
        let mut v: ChunkedVec<u32> = ChunkedVec::new(b.clone(), 64);
        for i in 0..1000 {
            v.push(i).unwrap();
        }
        assert_eq!(v.len(), 1000);
        assert_eq!(v.get(999), 999);
        assert_eq!(v.get(16), 16);
        *v.get_mut(5) = 77;
        assert_eq!(v.get(5), 77);
        assert_eq!(v.pop(), Some(999));
        v.truncate(17);
        assert_eq!(v.len(), 17);
        assert_eq!(v.last(), Some(16));
        assert!(v.memory() <= 3 * 64);
        assert_eq!(b.used(), v.memory());
        v.push(5).unwrap();
        assert_eq!(v.get(17), 5);
        drop(v);
        assert_eq!(b.used(), 0);
    }

    #[test]
    fn chunked_vec_stops_at_the_budget() {
        let b = Budget::new(Some(200));
        let mut v: ChunkedVec<u64> = ChunkedVec::new(b, 64);
        let mut pushed = 0;
        while v.push(1).is_ok() {
            pushed += 1;
        }
        assert_eq!(pushed, 24);
    }

    #[test]
    fn byte_stack_keeps_strings_whole() {
        let b = Budget::unlimited();
        let mut s = ByteStack::new(b.clone(), 10);
        let a = s.push(b"abcdef").unwrap();
        let c = s.push(b"ghijk").unwrap();
        let big = s.push(&[7u8; 25]).unwrap();
        assert_eq!(s.get(a, 6), b"abcdef");
        assert_eq!(s.get(c, 5), b"ghijk");
        assert_eq!(s.get(big, 25), &[7u8; 25]);
        s.truncate(c);
        let d = s.push(b"xy").unwrap();
        assert_eq!(s.get(d, 2), b"xy");
        assert_eq!(s.get(a, 6), b"abcdef");
        assert_eq!(b.used(), s.memory());
        drop(s);
        assert_eq!(b.used(), 0);
    }
}
