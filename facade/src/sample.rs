//! Sampling filters for log sites: `sample = N`, `first = N` / `once`,
//! `every = <Duration>`.
//!
//! A sampled-out hit costs a few instructions and writes no cache line that
//! other threads write: `sample` counts per thread, `first` stops writing
//! once its quota is spent, and `every` reads a coarse clock kept by a
//! background ticker (started on the first `every` hit) instead of calling
//! the OS clock. The ticker parks after a second without an admitted
//! hit, so an idle process gets no timer wake-ups; the next hit wakes it
//! and reads the clock itself that once.
//!
//! Statics owned here: none (each site owns its filter; the coarse clock is
//! `process`'s).

use std::cell::Cell;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::thread::LocalKey;
use std::time::Duration;

/// `sample = n`: true on the first hit of each run of `n` hits on this thread.
///
/// Per thread, exactly `ceil(hits / n)` hits pass; over `t` threads the total
/// is within `t` of `hits / n`.
#[inline(always)]
pub fn sample_nth(hits: &'static LocalKey<Cell<u32>>, n: u32) -> bool {
    hits.with(|h| {
        let seen = h.get();
        let next = seen + 1;
        h.set(if next >= n { 0 } else { next });
        seen == 0
    })
}

/// Takes back a hit that [`sample_nth`] let through on a site that turned
/// out disabled: the next hit on this thread passes instead.
#[cold]
pub fn sample_undo(hits: &'static LocalKey<Cell<u32>>) {
    hits.with(|h| h.set(0));
}

/// `first = n` / `once`: the first `n` hits of the site pass, over all threads.
#[derive(Debug)]
pub struct First(AtomicU32);

impl First {
    /// Nothing seen yet.
    pub const fn new() -> First {
        First(AtomicU32::new(0))
    }
    /// Whether this hit is among the first `n`.
    #[inline(always)]
    pub fn admit(&self, n: u32) -> bool {
        // Load first: once the quota is spent, hits only read the line.
        self.0.load(Ordering::Relaxed) < n && self.0.fetch_add(1, Ordering::Relaxed) < n
    }
    /// Returns the slot of an admitted hit whose site turned out disabled.
    #[cold]
    pub fn undo(&self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Default for First {
    fn default() -> Self {
        First::new()
    }
}

/// `every = period`: at most one hit per period passes (the first hit does).
#[derive(Debug)]
pub struct Every(AtomicU64);

impl Every {
    /// Never admitted yet.
    pub const fn new() -> Every {
        Every(AtomicU64::new(0))
    }
    /// Whether this hit starts a new period.
    #[inline(always)]
    pub fn admit(&self, period: Duration) -> bool {
        let now = crate::process::coarse_ms();
        let next = self.0.load(Ordering::Relaxed);
        now >= next && self.claim(next, now, period)
    }

    /// Reopens the period claimed by a hit whose site turned out disabled,
    /// so the next hit passes. Only hits racing through the same cold path
    /// can be admitted meanwhile, and they are disabled too.
    #[cold]
    pub fn undo(&self) {
        self.0.store(0, Ordering::Relaxed);
    }

    #[cold]
    #[inline(never)]
    fn claim(&self, next: u64, now: u64, period: Duration) -> bool {
        let period_ms = u64::try_from(period.as_millis()).unwrap_or(u64::MAX);
        let until = now.saturating_add(period_ms.max(1));
        let claimed = self
            .0
            .compare_exchange(next, until, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok();
        if claimed {
            crate::process::mark_active(now);
        }
        claimed
    }
}

impl Default for Every {
    fn default() -> Self {
        Every::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One hit per period passes; a short period passes again once the
    /// coarse clock has moved on.
    #[test]
    fn every_admits_one_hit_per_period() {
        static SITE: Every = Every::new();
        assert!(SITE.admit(Duration::from_secs(3600)), "first hit passes");
        assert!(!SITE.admit(Duration::from_secs(3600)));
        static SHORT: Every = Every::new();
        assert!(SHORT.admit(Duration::from_millis(1)));
        std::thread::sleep(Duration::from_millis(20));
        assert!(SHORT.admit(Duration::from_millis(1)), "the clock advances");
    }
}
