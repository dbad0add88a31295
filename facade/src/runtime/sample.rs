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
/// is within `t` of `hits / n`. `n = 0` passes nothing: "1 in 0" is no hit
/// at all, the same reading as `first = 0`, and the reason a literal
/// `sample = 0` is a compile error (it can only be a mistake); a zero
/// computed at run time turns the site off instead.
#[inline(always)]
pub fn sample_nth(hits: &'static LocalKey<Cell<u32>>, n: u32) -> bool {
    hits.with(|h| {
        let seen = h.get();
        let next = seen + 1;
        h.set(if next >= n { 0 } else { next });
        seen == 0 && n != 0
    })
}

/// Takes back a hit that [`sample_nth`] let through on a site that turned
/// out disabled: the next hit on this thread passes instead.
#[cold]
pub fn sample_undo(hits: &'static LocalKey<Cell<u32>>) {
    hits.with(|h| h.set(0));
}

/// `first = n` / `once`: the first `n` hits of the site pass, over all threads.
#[derive(Debug, Default)]
pub struct First(AtomicU32);

impl First {
    /// Nothing seen yet.
    pub const fn new() -> First {
        First(AtomicU32::new(0))
    }
    /// Whether this hit is among the first `n`.
    ///
    /// Only an admitted hit takes a slot (a compare-and-swap from the value
    /// it saw), so a refused hit never spends the quota: with an `undo` for
    /// every admitted hit whose site turned out disabled, exactly `n` hits
    /// of the enabled site pass, however many threads race. Once the quota
    /// is spent, hits only read the line.
    #[inline(always)]
    pub fn admit(&self, n: u32) -> bool {
        let seen = self.0.load(Ordering::Relaxed);
        // `claim` checks again; this test only keeps spent sites off the
        // compare-and-swap (so `<=` here is an equivalent mutant: slower
        // on a spent site, same answers).
        seen < n && self.claim(seen, n)
    }

    /// Takes slot `seen`, or a later one that is still free.
    #[cold]
    #[inline(never)]
    fn claim(&self, mut seen: u32, n: u32) -> bool {
        while seen < n {
            match self
                .0
                .compare_exchange_weak(seen, seen + 1, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => return true,
                Err(now) => seen = now,
            }
        }
        false
    }
    /// Returns the slot of an admitted hit whose site turned out disabled.
    #[cold]
    pub fn undo(&self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// `every = period`: at most one hit per period passes (the first hit does).
#[derive(Debug, Default)]
pub struct Every(AtomicU64);

impl Every {
    /// Never admitted yet.
    pub const fn new() -> Every {
        Every(AtomicU64::new(0))
    }
    /// Whether this hit starts a new period.
    #[inline(always)]
    pub fn admit(&self, period: Duration) -> bool {
        let now = crate::os::process::coarse_ms();
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
            crate::os::process::mark_active(now);
        }
        claimed
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

    /// An undone `every` hit (its site turned out disabled) gives the
    /// period back: the next hit passes at once.
    #[test]
    fn every_undo_reopens_the_period() {
        static SITE: Every = Every::new();
        let hour = Duration::from_secs(3600);
        assert!(SITE.admit(hour));
        SITE.undo();
        assert!(SITE.admit(hour), "the period was given back");
        assert!(!SITE.admit(hour));
    }

    thread_local! {
        static HITS: Cell<u32> = const { Cell::new(0) };
        static NEVER: Cell<u32> = const { Cell::new(0) };
    }

    /// 1 in `n` per thread; an undone pass lets the next hit through; `n = 0`
    /// (reachable only at run time) passes nothing.
    #[test]
    fn sample_passes_one_in_n_and_zero_passes_none() {
        let passed: Vec<usize> = (0..9).filter(|_| sample_nth(&HITS, 3)).collect();
        assert_eq!(passed, [0, 3, 6]);
        assert!(sample_nth(&HITS, 3), "hit 9 starts a new run");
        assert!(!sample_nth(&HITS, 3));
        sample_undo(&HITS);
        assert!(
            sample_nth(&HITS, 3),
            "an undone pass lets the next hit through"
        );
        let zero = std::hint::black_box(0);
        assert_eq!((0..100).filter(|_| sample_nth(&NEVER, zero)).count(), 0);
    }

    /// Exactly `n` hits pass, refused hits take nothing, and an undone hit
    /// gives its slot back.
    #[test]
    fn first_admits_exactly_n_and_undo_returns_a_slot() {
        let f = First::new();
        assert_eq!((0..10).filter(|_| f.admit(3)).count(), 3);
        assert!(!f.admit(3));
        f.undo();
        assert!(f.admit(3), "the returned slot");
        assert!(!f.admit(3));
        assert_eq!((0..10).filter(|_| First::new().admit(0)).count(), 0);
    }

    /// A hit that saw a free slot but lost the race for it to another
    /// thread (its compare-and-swap finds the quota spent) is refused.
    #[test]
    fn a_hit_that_loses_the_last_slot_is_refused() {
        let f = First::new();
        assert!(f.admit(1));
        assert!(
            !f.claim(0, 1),
            "saw slot 0 free, but it was taken meanwhile"
        );
        let g = First::new();
        assert!(g.admit(3));
        assert!(g.claim(0, 3), "slot 0 was taken, slot 1 is still free");
        assert_eq!(g.0.load(Ordering::Relaxed), 2);
    }

    /// Racing threads never let more than `n` through, and never spend a
    /// slot without being admitted: every site admits exactly `n`.
    #[test]
    fn first_admits_exactly_n_under_a_race() {
        const SITES: usize = 2_000;
        let sites: Vec<First> = (0..SITES).map(|_| First::new()).collect();
        let barrier = std::sync::Barrier::new(4);
        let admitted: Vec<AtomicU32> = (0..SITES).map(|_| AtomicU32::new(0)).collect();
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    barrier.wait();
                    for (site, count) in sites.iter().zip(&admitted) {
                        for _ in 0..3 {
                            if site.admit(2) {
                                count.fetch_add(1, Ordering::Relaxed);
                            }
                        }
                    }
                });
            }
        });
        let wrong = admitted
            .iter()
            .filter(|c| c.load(Ordering::Relaxed) != 2)
            .count();
        assert_eq!(wrong, 0, "sites that did not admit exactly 2");
        assert!(sites.iter().all(|f| f.0.load(Ordering::Relaxed) == 2));
    }
}
