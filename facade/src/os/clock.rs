//! The cheap wall clock of asynchronous records: the CPU's time-stamp
//! counter, converted to Unix nanoseconds with a calibration that a
//! background writer keeps fresh (as NanoLog and Quill do).
//!
//! `clock_gettime` costs tens of nanoseconds on some machines (about 40 ns
//! here); `rdtsc` and a multiply cost a few. The counter is used only where
//! it is invariant (`constant_tsc` and `nonstop_tsc` in `/proc/cpuinfo`, on
//! x86-64) and once [`recalibrate`] has measured its rate; until then, and
//! everywhere else, [`now_ns`] reads `SystemTime`.
//!
//! Calibration: the first call of [`recalibrate`] takes an anchor pair
//! (counter, wall time); later calls, at least `FIRST_AFTER` and then
//! `RESYNC_EVERY` apart, measure the rate over the whole span since that
//! anchor (so its error shrinks as the process runs) and publish a fresh
//! base pair, so a wall-clock step reaches the readings within a second.
//!
//! Statics owned here: the published calibration (`PUBLISHED`, a seqlock)
//! and the calibrator's state (`CALIBRATOR`).

use std::sync::atomic::{fence, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// A published calibration behind a seqlock: one writer (the calibrator,
/// under its mutex), any number of readers that never wait.
struct Published {
    /// Odd while the pair is being written, 0 before the first one
    /// (readers then use the system clock).
    seq: AtomicU64,
    base_tsc: AtomicU64,
    base_ns: AtomicU64,
    /// Nanoseconds per counter tick, times 2^32.
    mult: AtomicU64,
}

impl Published {
    const fn new() -> Self {
        Published {
            seq: AtomicU64::new(0),
            base_tsc: AtomicU64::new(0),
            base_ns: AtomicU64::new(0),
            mult: AtomicU64::new(0),
        }
    }

    /// The reading for counter value `tsc()`, or `None` before the first
    /// calibration and while one is being written.
    #[inline(always)]
    fn read(&self, tsc: impl FnOnce() -> u64) -> Option<u64> {
        let seq = self.seq.load(Ordering::Acquire);
        if seq != 0 && seq & 1 == 0 {
            let tsc = tsc();
            let base_tsc = self.base_tsc.load(Ordering::Relaxed);
            let base_ns = self.base_ns.load(Ordering::Relaxed);
            let mult = self.mult.load(Ordering::Relaxed);
            fence(Ordering::Acquire);
            if self.seq.load(Ordering::Relaxed) == seq {
                return Some(convert(tsc, base_tsc, base_ns, mult));
            }
        }
        None
    }

    /// Publishes a new (counter, wall time, rate) triple. Callers are
    /// serialised (the calibrator's mutex).
    fn publish(&self, tsc: u64, ns: u64, mult: u64) {
        let writing = self.seq.load(Ordering::Relaxed) | 1;
        self.seq.store(writing, Ordering::Relaxed);
        fence(Ordering::Release);
        self.base_tsc.store(tsc, Ordering::Relaxed);
        self.base_ns.store(ns, Ordering::Relaxed);
        self.mult.store(mult, Ordering::Relaxed);
        self.seq.store(writing + 1, Ordering::Release);
    }
}

/// Counter value `tsc` in Unix nanoseconds, given the base pair and rate.
#[inline(always)]
fn convert(tsc: u64, base_tsc: u64, base_ns: u64, mult: u64) -> u64 {
    let ticks = tsc.wrapping_sub(base_tsc);
    // A reading taken just before the base (another core's counter a few
    // ticks behind) would wrap: clamp to the base instead.
    let ticks = if ticks > u64::MAX / 2 { 0 } else { ticks };
    base_ns + ((u128::from(ticks) * u128::from(mult)) >> 32) as u64
}

/// The rate (nanoseconds per tick, times 2^32) of a measured span, or
/// `None` when either side is empty (no rate can be told).
fn rate(span_ns: u128, span_ticks: u128) -> Option<u64> {
    if span_ticks == 0 || span_ns == 0 {
        return None;
    }
    Some(((span_ns << 32) / span_ticks) as u64)
}

static PUBLISHED: Published = Published::new();

/// The wait before the first calibration is published.
const FIRST_AFTER: Duration = Duration::from_millis(10);
/// How often the base pair is refreshed after that.
const RESYNC_EVERY: Duration = Duration::from_secs(1);

struct Calibrator {
    /// Whether the counter may be used at all (decided once).
    usable: bool,
    anchor_tsc: u64,
    anchor: Instant,
    last: Option<Instant>,
}

static CALIBRATOR: Mutex<Option<Calibrator>> = Mutex::new(None);

/// Unix time in nanoseconds (0 before the epoch).
#[inline]
pub(crate) fn now_ns() -> u64 {
    match PUBLISHED.read(read_tsc) {
        Some(ns) => ns,
        None => system_ns(),
    }
}

fn system_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// The CPU's time-stamp counter (0 where there is none: the counter is then
/// never calibrated, see [`invariant_tsc`]; Miri, which cannot run
/// `rdtsc`, is treated as such a CPU).
#[inline(always)]
fn read_tsc() -> u64 {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    // SAFETY: `rdtsc` has no preconditions on x86-64.
    #[allow(unused_unsafe)]
    return unsafe { core::arch::x86_64::_rdtsc() };
    #[cfg(any(not(target_arch = "x86_64"), miri))]
    0
}

/// Whether the CPU says its counter ticks at a constant rate, in every
/// power state.
fn invariant_tsc() -> bool {
    cfg!(all(target_arch = "x86_64", not(miri)))
        && std::fs::read_to_string("/proc/cpuinfo").is_ok_and(|info| flags_say_invariant(&info))
}

/// Whether `/proc/cpuinfo` text lists both `constant_tsc` and
/// `nonstop_tsc` on its (first) `flags` line.
fn flags_say_invariant(cpuinfo: &str) -> bool {
    let flags = cpuinfo.lines().find(|l| l.starts_with("flags"));
    flags.is_some_and(|l| {
        let has = |w: &str| l.split_whitespace().any(|x| x == w);
        has("constant_tsc") && has("nonstop_tsc")
    })
}

impl Calibrator {
    /// One step of calibration at `now`: when a calibration is due, reads
    /// the (counter, wall) pair with `read` and returns what to publish:
    /// (counter, wall, rate).
    fn step(&mut self, now: Instant, read: impl FnOnce() -> (u64, u64)) -> Option<(u64, u64, u64)> {
        if !self.usable {
            return None;
        }
        let due = match self.last {
            None => now.duration_since(self.anchor) >= FIRST_AFTER,
            Some(last) => now.duration_since(last) >= RESYNC_EVERY,
        };
        if !due {
            return None;
        }
        // The rate over the span since the anchor, measured with the
        // monotonic clock.
        let (tsc, wall) = read();
        let span_ns = now.duration_since(self.anchor).as_nanos();
        let span_ticks = u128::from(tsc.wrapping_sub(self.anchor_tsc));
        let mult = rate(span_ns, span_ticks)?;
        self.last = Some(now);
        Some((tsc, wall, mult))
    }
}

/// Calibrates the counter, or refreshes the calibration when it is due;
/// cheap when not due. Called by asynchronous writers as they run.
pub(crate) fn recalibrate() {
    let Ok(mut state) = CALIBRATOR.try_lock() else {
        return;
    };
    let state = state.get_or_insert_with(|| Calibrator {
        usable: invariant_tsc(),
        anchor_tsc: read_tsc(),
        anchor: Instant::now(),
        last: None,
    });
    // The pair (counter, wall) is read back to back, after `now`.
    if let Some((tsc, wall, mult)) = state.step(Instant::now(), || (read_tsc(), system_ns())) {
        PUBLISHED.publish(tsc, wall, mult);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Once calibrated, the cheap clock reads the wall clock to within a
    /// millisecond (the precision of the RADICAL time column); on a CPU
    /// whose counter is invariant (this one) the counter is then in use.
    #[test]
    fn the_cheap_clock_follows_the_wall_clock() {
        let deadline = Instant::now() + Duration::from_secs(5);
        while PUBLISHED.read(read_tsc).is_none() && Instant::now() < deadline {
            recalibrate();
            std::thread::sleep(Duration::from_millis(2));
        }
        assert_eq!(
            PUBLISHED.read(read_tsc).is_some(),
            invariant_tsc(),
            "calibrated exactly when the counter is invariant"
        );
        for _ in 0..5 {
            let before = system_ns();
            let cheap = now_ns();
            let after = system_ns();
            assert!(
                cheap + 1_000_000 >= before && cheap <= after + 1_000_000,
                "{before} <= {cheap} <= {after} (within 1 ms)"
            );
            std::thread::sleep(Duration::from_millis(3));
        }
    }

    #[test]
    fn this_machine_is_asked_through_proc_cpuinfo() {
        let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        assert_eq!(
            invariant_tsc(),
            cfg!(target_arch = "x86_64") && flags_say_invariant(&info)
        );
    }

    #[test]
    fn both_flags_on_the_flags_line_are_needed() {
        let both = "processor\t: 0\nflags\t\t: fpu tsc constant_tsc nonstop_tsc sse2\n";
        assert!(flags_say_invariant(both));
        assert!(!flags_say_invariant("flags\t: tsc constant_tsc\n"));
        assert!(!flags_say_invariant("flags\t: tsc nonstop_tsc\n"));
        // Whole words only, and only the flags line.
        assert!(!flags_say_invariant(
            "flags\t: constant_tsc_x nonstop_tsc\n"
        ));
        assert!(!flags_say_invariant("bugs\t: constant_tsc nonstop_tsc\n"));
        assert!(!flags_say_invariant(""));
    }

    #[test]
    fn a_published_calibration_converts_ticks_to_nanoseconds() {
        let p = Published::new();
        assert_eq!(p.read(|| 5), None, "nothing published yet");
        // 2 ns per tick from (tick 1,000, 5,000 ns).
        p.publish(1_000, 5_000, 2 << 32);
        assert_eq!(p.read(|| 1_010), Some(5_020));
        assert_eq!(p.read(|| 1_000), Some(5_000));
        // A counter a little behind the base reads as the base.
        assert_eq!(p.read(|| 990), Some(5_000));
        // A second publication replaces the first.
        p.publish(2_000, 9_000, 1 << 31);
        assert_eq!(p.read(|| 2_010), Some(9_005));
    }

    #[test]
    fn a_calibration_being_written_is_not_read() {
        let p = Published::new();
        p.publish(1_000, 5_000, 1 << 32);
        let seq = p.seq.load(Ordering::Relaxed);
        assert!(seq != 0 && seq % 2 == 0, "even once written: {seq}");
        p.seq.store(seq | 1, Ordering::Relaxed);
        assert_eq!(p.read(|| 1_010), None, "odd: a writer is at work");
        p.seq.store(seq + 2, Ordering::Relaxed);
        assert_eq!(p.read(|| 1_010), Some(5_010));
    }

    #[test]
    fn conversion_scales_by_the_rate_and_clamps_readings_behind_the_base() {
        assert_eq!(convert(1_500, 1_000, 7, 3 << 32), 1_507);
        // Half a tick per nanosecond: 2^31 / 2^32.
        assert_eq!(convert(1_400, 1_000, 0, 1 << 31), 200);
        assert_eq!(convert(999, 1_000, 7, 3 << 32), 7);
    }

    #[test]
    fn the_rate_needs_both_a_span_of_time_and_of_ticks() {
        assert_eq!(rate(1_000, 2_000), Some(1 << 31));
        assert_eq!(rate(3_000, 1_000), Some(3 << 32));
        assert_eq!(rate(0, 1_000), None);
        assert_eq!(rate(1_000, 0), None);
    }

    fn calibrator(usable: bool, anchor: Instant) -> Calibrator {
        Calibrator {
            usable,
            anchor_tsc: 1_000,
            anchor,
            last: None,
        }
    }

    #[test]
    fn the_first_calibration_waits_for_a_long_enough_span() {
        let t0 = Instant::now();
        let ms = Duration::from_millis;
        let mut c = calibrator(true, t0);
        let read = || (11_000_000, 123);
        assert_eq!(c.step(t0 + ms(9), read), None, "span too short");
        // 10 ms over 11,000,000 - 1,000 ticks.
        let mult = ((10_000_000u128 << 32) / 10_999_000) as u64;
        assert_eq!(c.step(t0 + ms(10), read), Some((11_000_000, 123, mult)));
        assert_eq!(c.last, Some(t0 + ms(10)));
    }

    #[test]
    fn later_calibrations_come_a_second_apart_and_span_from_the_anchor() {
        let t0 = Instant::now();
        let ms = Duration::from_millis;
        let mut c = calibrator(true, t0);
        c.last = Some(t0 + ms(10));
        assert_eq!(c.step(t0 + ms(1_009), || (2_001_000, 1)), None, "not due");
        let at = t0 + ms(1_010);
        // 1.01 s over 2,000,000 ticks since the anchor, not since the last.
        let mult = ((1_010_000_000u128 << 32) / 2_000_000) as u64;
        assert_eq!(c.step(at, || (2_001_000, 1)), Some((2_001_000, 1, mult)));
        assert_eq!(c.last, Some(at));
    }

    #[test]
    fn an_unusable_counter_or_an_empty_span_publishes_nothing() {
        let t0 = Instant::now();
        let later = t0 + Duration::from_secs(2);
        assert_eq!(calibrator(false, t0).step(later, || (5_000, 1)), None);
        let mut stuck = calibrator(true, t0);
        assert_eq!(stuck.step(later, || (1_000, 1)), None, "no ticks");
        assert_eq!(stuck.last, None, "and nothing recorded");
    }
}
