//! Zeroed anonymous memory that asks the kernel for huge pages. The visited set's table is
//! probed at random across tens of megabytes: with 4 KiB pages nearly every probe misses
//! the TLB as well as the cache, and a page walk costs about as much as the miss itself.

use memmap2::MmapMut;

use super::budget::OutOfMemory;

pub struct Pages {
    map: MmapMut,
}

impl Pages {
    /// `bytes` zeroed bytes (the kernel's own zero pages until written).
    pub fn zeroed(bytes: usize) -> Result<Pages, OutOfMemory> {
        let map = MmapMut::map_anon(bytes.max(1)).map_err(|_| OutOfMemory)?;
        // Only a hint: where transparent huge pages are off, the table works as before.
        #[cfg(target_os = "linux")]
        let _ = map.advise(memmap2::Advice::HugePage);
        Ok(Pages { map })
    }

    #[inline]
    pub fn u64_at(&self, i: usize) -> u64 {
        let b = &self.map[i * 8..i * 8 + 8];
        u64::from_ne_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
    }

    #[inline]
    pub fn set_u64(&mut self, i: usize, v: u64) {
        self.map[i * 8..i * 8 + 8].copy_from_slice(&v.to_ne_bytes());
    }

    /// Asks the cache for the line holding byte `at`, without waiting for it.
    #[inline]
    pub fn prefetch(&self, at: usize) {
        if let Some(b) = self.map.get(at) {
            prefetch(b);
        }
    }
}

/// Asks the cache for the line holding `r`, without waiting for it: a lookup that will need
/// it a little later finds it there instead of stalling on memory.
#[inline]
pub fn prefetch<T>(r: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint; it reads nothing and cannot fault. (SSE is part of
    // every x86-64.)
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(r as *const T as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = r;
}

/// As `prefetch`, for memory about to be written: `p` need not hold a value yet, nor be
/// a valid address (a hint never faults).
#[inline]
pub fn prefetch_for_write<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: as `prefetch`'s.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_ET0};
        _mm_prefetch::<_MM_HINT_ET0>(p as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
