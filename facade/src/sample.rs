//! Sampling filters for log sites: `sample = N`, `first = N` / `once`,
//! `every = <Duration>`.
//!
//! A sampled-out hit costs a few instructions and writes no cache line that
//! other threads write: `sample` counts per thread, `first` stops writing
//! once its quota is spent, and `every` reads a coarse clock kept by a
//! background ticker (started on the first `every` hit) instead of calling
//! the OS clock. The ticker parks after [`TICKER_IDLE`] without an admitted
//! hit, so an idle process gets no timer wake-ups; the next hit wakes it
//! and reads the clock itself that once.

use std::cell::Cell;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::thread::LocalKey;
use std::time::{Duration, Instant};

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

/// Resolution of the coarse clock used by `every`.
pub const TICK: Duration = Duration::from_millis(1);

/// The ticker parks after this long without an admitted `every` hit, so an
/// idle process has no timer wake-ups; the next hit wakes it.
pub const TICKER_IDLE: Duration = Duration::from_secs(1);

/// Coarse milliseconds since `EPOCH`, plus one; 0 = no ticker running (not
/// started yet, or parked).
static COARSE_MS: AtomicU64 = AtomicU64::new(0);
/// The coarse time of the last admitted hit or ticker wake-up.
static LAST_ACTIVE_MS: AtomicU64 = AtomicU64::new(0);
static EPOCH: OnceLock<Instant> = OnceLock::new();
/// The ticker thread and the process it runs in (a forked child has none).
static TICKER: Mutex<Option<(u32, std::thread::Thread)>> = Mutex::new(None);

/// In a forked child (called from the fork handler, so only an atomic
/// store): the clock is stale and no ticker runs; the next hit starts one.
pub(crate) fn forget_ticker_after_fork() {
    COARSE_MS.store(0, Ordering::Relaxed);
}

/// Milliseconds since the ticker started (always >= 1 once running).
#[inline(always)]
fn coarse_ms() -> u64 {
    match COARSE_MS.load(Ordering::Relaxed) {
        0 => wake_ticker(),
        ms => ms,
    }
}

fn precise_ms(epoch: Instant) -> u64 {
    epoch.elapsed().as_millis() as u64 + 1
}

fn tick(epoch: Instant) {
    let idle = TICKER_IDLE.as_millis() as u64;
    loop {
        std::thread::sleep(TICK);
        let now = precise_ms(epoch);
        if now.saturating_sub(LAST_ACTIVE_MS.load(Ordering::Relaxed)) > idle {
            // Readers that see 0 wake us (and read the clock themselves
            // until we run again); a wake-up that races with this store
            // leaves the park token set, so `park` returns at once.
            COARSE_MS.store(0, Ordering::Relaxed);
            std::thread::park();
            continue;
        }
        COARSE_MS.store(now, Ordering::Relaxed);
    }
}

/// Starts the ticker on the first `every` hit, or wakes it after it parked;
/// returns the precise time meanwhile.
#[cold]
#[inline(never)]
fn wake_ticker() -> u64 {
    let epoch = *EPOCH.get_or_init(Instant::now);
    let now = precise_ms(epoch);
    LAST_ACTIVE_MS.fetch_max(now, Ordering::Relaxed);
    let pid = crate::format::pid(); // also arms the fork handler
                                    // try_lock: another hit is starting the ticker (or, in a forked child,
                                    // the lock was copied held); this hit just uses the precise time.
    if let Ok(mut ticker) = TICKER.try_lock() {
        let running = matches!(&*ticker, Some((p, _)) if *p == pid);
        if !running {
            *ticker = std::thread::Builder::new()
                .name("elide-ticker".into())
                .spawn(move || tick(epoch))
                .ok()
                .map(|h| (pid, h.thread().clone()));
        }
        if let Some((_, t)) = &*ticker {
            // fetch_max: the ticker may already have stored a later time.
            COARSE_MS.fetch_max(now, Ordering::Relaxed);
            t.unpark();
        }
    }
    // Without a thread, every hit reads the clock here.
    now
}

/// `every = period`: at most one hit per period passes (the first hit does).
pub struct Every(AtomicU64);

impl Every {
    /// Never admitted yet.
    pub const fn new() -> Every {
        Every(AtomicU64::new(0))
    }
    /// Whether this hit starts a new period.
    #[inline(always)]
    pub fn admit(&self, period: Duration) -> bool {
        let now = coarse_ms();
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
            LAST_ACTIVE_MS.fetch_max(now, Ordering::Relaxed);
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

    /// The ticker parks when `every` sites go quiet and comes back on the
    /// next hit, which still sees a correct clock.
    #[test]
    fn ticker_parks_when_idle_and_wakes_on_the_next_hit() {
        static SITE: Every = Every::new();
        assert!(SITE.admit(Duration::from_secs(3600)), "first hit passes");
        assert!(!SITE.admit(Duration::from_secs(3600)));
        let deadline = Instant::now() + Duration::from_secs(20);
        while COARSE_MS.load(Ordering::Relaxed) != 0 {
            assert!(Instant::now() < deadline, "ticker never parked");
            std::thread::sleep(Duration::from_millis(50));
        }
        // Parked: the next hit reads the clock, wakes the ticker, and the
        // period is still honoured.
        let before = precise_ms(*EPOCH.get().unwrap());
        assert!(!SITE.admit(Duration::from_secs(3600)));
        assert!(
            COARSE_MS.load(Ordering::Relaxed) >= before,
            "woken with a fresh time"
        );
        static SHORT: Every = Every::new();
        assert!(SHORT.admit(Duration::from_millis(1)));
        std::thread::sleep(Duration::from_millis(20));
        assert!(
            SHORT.admit(Duration::from_millis(1)),
            "the woken clock advances"
        );
    }
}
