//! The memory budget of one search: every structure that grows with states or depth takes its
//! bytes from here before it allocates, so that a search stops cleanly at its limit instead of
//! being killed by the kernel or aborting on a failed allocation.
//!
//! The budget only counts; it never reads the machine. What the limit should be (a share of
//! the memory available) is decided at the edge (`cli`).

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

/// The search ran out of its memory budget (or an allocation failed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("memory limit reached")]
pub struct OutOfMemory;

struct Inner {
    limit: u64,
    used: AtomicU64,
    peak: AtomicU64,
}

/// A shared byte counter with a limit. Cloning shares the counter, also with a rider on
/// another thread (a recording run's).
#[derive(Clone)]
pub struct Budget(Arc<Inner>);

impl Budget {
    /// A budget of `limit` bytes (None: no limit).
    pub fn new(limit: Option<u64>) -> Budget {
        Budget(Arc::new(Inner {
            limit: limit.unwrap_or(u64::MAX),
            used: AtomicU64::new(0),
            peak: AtomicU64::new(0),
        }))
    }

    pub fn unlimited() -> Budget {
        Budget::new(None)
    }

    /// Takes `bytes` from the budget, or fails without taking anything.
    #[inline]
    pub fn take(&self, bytes: u64) -> Result<(), OutOfMemory> {
        let limit = self.0.limit;
        let before = self
            .0
            .used
            .fetch_update(Relaxed, Relaxed, |u| {
                let used = u.saturating_add(bytes);
                (used <= limit).then_some(used)
            })
            .map_err(|_| OutOfMemory)?;
        self.0.peak.fetch_max(before.saturating_add(bytes), Relaxed);
        Ok(())
    }

    /// Whether `bytes` more would still fit.
    pub fn fits(&self, bytes: u64) -> bool {
        self.used().saturating_add(bytes) <= self.0.limit
    }

    /// Returns bytes that were freed.
    #[inline]
    pub fn give(&self, bytes: u64) {
        let _ = self
            .0
            .used
            .fetch_update(Relaxed, Relaxed, |u| Some(u.saturating_sub(bytes)));
    }

    pub fn used(&self) -> u64 {
        self.0.used.load(Relaxed)
    }

    pub fn peak(&self) -> u64 {
        self.0.peak.load(Relaxed)
    }

    pub fn limit(&self) -> Option<u64> {
        (self.0.limit != u64::MAX).then_some(self.0.limit)
    }
}

impl Default for Budget {
    fn default() -> Self {
        Budget::unlimited()
    }
}

impl std::fmt::Debug for Budget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Budget({} of {:?})", self.used(), self.limit())
    }
}

/// The heap bytes a structure holds, for those that report what they hold rather than take
/// it from a budget as they grow.
pub trait Held {
    fn held(&self) -> u64;
}

impl<T> Held for Vec<T> {
    /// Its capacity (not its length: that is what the allocator gave it).
    #[inline]
    fn held(&self) -> u64 {
        (self.capacity() * std::mem::size_of::<T>()) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_gives_and_refuses_past_the_limit() {
        let b = Budget::new(Some(100));
        assert!(b.take(60).is_ok());
        assert_eq!(b.take(50), Err(OutOfMemory));
        assert_eq!(b.used(), 60);
        b.give(30);
        assert!(b.take(70).is_ok());
        assert_eq!(b.peak(), 100);
        let c = b.clone();
        c.give(100);
        assert_eq!(b.used(), 0);
    }
}
