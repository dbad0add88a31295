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
//! Statics owned here: the published calibration (`SEQ`, `BASE_TSC`,
//! `BASE_NS`, `MULT`) and the calibrator's state (`CALIBRATOR`).

use std::sync::atomic::{fence, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Seqlock over the calibration: odd while it is being written, 0 before
/// the first one (readers then use the system clock).
static SEQ: AtomicU64 = AtomicU64::new(0);
static BASE_TSC: AtomicU64 = AtomicU64::new(0);
static BASE_NS: AtomicU64 = AtomicU64::new(0);
/// Nanoseconds per counter tick, times 2^32.
static MULT: AtomicU64 = AtomicU64::new(0);

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
    let seq = SEQ.load(Ordering::Acquire);
    if seq != 0 && seq & 1 == 0 {
        let tsc = read_tsc();
        let base_tsc = BASE_TSC.load(Ordering::Relaxed);
        let base_ns = BASE_NS.load(Ordering::Relaxed);
        let mult = MULT.load(Ordering::Relaxed);
        fence(Ordering::Acquire);
        if SEQ.load(Ordering::Relaxed) == seq {
            let ticks = tsc.wrapping_sub(base_tsc);
            // A reading taken just before the base (another core's counter a
            // few ticks behind) would wrap: clamp to the base instead.
            let ticks = if ticks > u64::MAX / 2 { 0 } else { ticks };
            return base_ns + ((u128::from(ticks) * u128::from(mult)) >> 32) as u64;
        }
    }
    system_ns()
}

fn system_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn read_tsc() -> u64 {
    // SAFETY: `rdtsc` has no preconditions on x86-64.
    #[allow(unused_unsafe)]
    unsafe {
        core::arch::x86_64::_rdtsc()
    }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn read_tsc() -> u64 {
    0
}

/// Whether the CPU says its counter ticks at a constant rate, in every
/// power state.
fn invariant_tsc() -> bool {
    if !cfg!(target_arch = "x86_64") {
        return false;
    }
    let Ok(info) = std::fs::read_to_string("/proc/cpuinfo") else {
        return false;
    };
    let flags = info.lines().find(|l| l.starts_with("flags"));
    flags.is_some_and(|l| {
        let has = |w: &str| l.split_whitespace().any(|x| x == w);
        has("constant_tsc") && has("nonstop_tsc")
    })
}

/// Calibrates the counter, or refreshes the calibration when it is due;
/// cheap when not due. Called by asynchronous writers as they run.
pub(crate) fn recalibrate() {
    let Ok(mut state) = CALIBRATOR.try_lock() else {
        return;
    };
    let state = state.get_or_insert_with(|| {
        let usable = invariant_tsc();
        Calibrator {
            usable,
            anchor_tsc: read_tsc(),
            anchor: Instant::now(),
            last: None,
        }
    });
    if !state.usable {
        return;
    }
    let due = match state.last {
        None => state.anchor.elapsed() >= FIRST_AFTER,
        Some(last) => last.elapsed() >= RESYNC_EVERY,
    };
    if !due {
        return;
    }
    // The pair (counter, wall) read back to back; the rate over the span
    // since the anchor, measured with the monotonic clock.
    let tsc = read_tsc();
    let now = Instant::now();
    let wall = system_ns();
    let span_ns = now.duration_since(state.anchor).as_nanos();
    let span_ticks = u128::from(tsc.wrapping_sub(state.anchor_tsc));
    if span_ticks == 0 || span_ns == 0 {
        return;
    }
    let mult = ((span_ns << 32) / span_ticks) as u64;
    state.last = Some(now);
    let seq = SEQ.load(Ordering::Relaxed);
    SEQ.store(seq | 1, Ordering::Relaxed);
    fence(Ordering::Release);
    BASE_TSC.store(tsc, Ordering::Relaxed);
    BASE_NS.store(wall, Ordering::Relaxed);
    MULT.store(mult, Ordering::Relaxed);
    SEQ.store((seq | 1) + 1, Ordering::Release);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Once calibrated, the cheap clock reads the wall clock to within a
    /// millisecond (the precision of the RADICAL time column).
    #[test]
    fn the_cheap_clock_follows_the_wall_clock() {
        recalibrate();
        std::thread::sleep(FIRST_AFTER + Duration::from_millis(5));
        recalibrate();
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
}
