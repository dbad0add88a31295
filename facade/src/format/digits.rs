//! Integers and `%.3f` timestamps written by hand: a RADICAL header costs
//! a few dozen instructions instead of the `fmt` machinery's hundreds
//! (and no `f64` formatting at all).

use std::time::Duration;

/// The widest padding a column needs.
const SPACES: [u8; 20] = [b' '; 20];

use crate::record::decimal::{digits_into, push_ascii, DIGITS_END, PAIRS};
pub(crate) use crate::record::decimal::{push_i64, push_u64};

/// Appends `width - used` spaces (none if `used >= width`), for
/// left-aligned columns (`%-5d`, `%-20s`).
#[inline]
pub(crate) fn pad(used: usize, width: usize, out: &mut String) {
    if used < width {
        push_ascii::<20, 20>(&SPACES, 0, width - used, out);
    }
}

/// Appends `n` left-aligned in `width` columns (Python's `%-5d`; widths
/// up to 24).
#[inline]
pub(crate) fn push_u64_left(n: u64, width: usize, out: &mut String) {
    // The digits and their padding in one copy.
    let mut buf = [b' '; DIGITS_END + 24];
    let at = digits_into(n, &mut buf);
    push_ascii::<24, _>(&buf, at, (DIGITS_END - at).max(width), out);
}

/// Appends a time, given as its distance from the Unix epoch (`Err`:
/// before it), as epoch seconds with `DIGITS` decimals (3 for RADICAL
/// lines, 6 for JSON): exactly the text of `format!("{:.3}", secs)` of the
/// float `secs = d.as_secs_f64()`, which is also Python's `"%.3f" % secs`
/// (both round the binary value, ties to even). radical.utils writes
/// `%.3f` of `time.time()`, so a line rounds up at the half millisecond,
/// not down.
///
/// Integer seconds and fractions are written directly; the float is
/// consulted only to round, by exact integer comparison (for milliseconds
/// only near the half, where it may differ from the exact time). The text
/// is the float's for every time before 2^42 s with three decimals and
/// 2^33 s (the year 2242) with six, where a float's error stays below
/// half a step; a later time is written as its exact step, or the next,
/// and never panics.
pub(crate) fn push_epoch<const DIGITS: usize>(
    since_epoch: Result<Duration, Duration>,
    out: &mut String,
) {
    match since_epoch {
        Ok(d) => {
            let (secs, frac) = round_frac(d, 10u32.pow(DIGITS as u32));
            push_decimal::<DIGITS>(secs, frac, out);
        }
        // Before 1970: not worth a fast path.
        Err(before) => {
            use std::fmt::Write;
            let _ = write!(out, "{:.*}", DIGITS, -before.as_secs_f64());
        }
    }
}

/// Appends `secs.frac`, `frac` zero-padded to `DIGITS` (at most 7) digits.
#[inline(always)]
fn push_decimal<const DIGITS: usize>(secs: u64, mut frac: u32, out: &mut String) {
    let mut line = [0u8; DIGITS_END + 28];
    let at = digits_into(secs, &mut line);
    line[DIGITS_END] = b'.';
    // Two digits at a time from the right, then an odd first one.
    let mut i = DIGITS;
    while i >= 2 {
        let pair = (frac % 100) as usize * 2;
        frac /= 100;
        line[DIGITS_END + i - 1] = PAIRS[pair];
        line[DIGITS_END + i] = PAIRS[pair + 1];
        i -= 2;
    }
    if i == 1 {
        line[DIGITS_END + 1] = b'0' + frac as u8;
    }
    push_ascii::<28, _>(&line, at, DIGITS_END + 1 + DIGITS - at, out);
}

/// `d` rounded to steps of `1 / scale` s (1,000 or 1,000,000) as the
/// float `d.as_secs_f64()` rounds: (seconds, steps `0..scale`).
#[inline(always)]
pub(crate) fn round_frac(d: Duration, scale: u32) -> (u64, u32) {
    let step = 1_000_000_000 / scale;
    let secs = d.as_secs();
    let (k, rem) = (d.subsec_nanos() / step, d.subsec_nanos() % step);
    // Before 2^34 s (the year 2514) the float is within 4 us of the exact
    // time: far from the half millisecond, the exact time decides. A half
    // microsecond is never that far, so there the float always does.
    let up = if scale == 1000 && secs < 1 << 34 && rem.abs_diff(step / 2) > 4_000 {
        rem > step / 2
    } else {
        let k = u128::from(secs) * u128::from(scale) + u128::from(k);
        float_rounds_up(d.as_secs_f64(), k, scale)
    };
    match up {
        false => (secs, k),
        true if k + 1 == scale => (secs + 1, 0),
        true => (secs, k + 1),
    }
}

/// Whether `x` rounds to `k + 1` rather than `k` steps of `1 / scale`,
/// `k` being the exact time's floor: compares `x` with the midpoint
/// `(2k + 1) / (2 scale)` exactly, in integers, ties to even.
fn float_rounds_up(x: f64, k: u128, scale: u32) -> bool {
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1 << 52) - 1);
    let (m, e) = match exp {
        0 => (frac, -1074),
        _ => (frac | (1 << 52), exp - 1075),
    };
    if e >= 0 {
        // Whole seconds beyond 2^52: no fraction left to round.
        return false;
    }
    // x = m * 2^e; compare m * 2 scale with (2k + 1) * 2^-e.
    let lhs = u128::from(m) * 2 * u128::from(scale);
    let mid = 2 * k + 1;
    let rhs = match mid.checked_shl((-e) as u32) {
        Some(r) if r >> (-e) as u32 == mid => r,
        _ => return false, // the midpoint is far above x
    };
    match lhs.cmp(&rhs) {
        std::cmp::Ordering::Greater => true,
        std::cmp::Ordering::Less => false,
        std::cmp::Ordering::Equal => k % 2 == 1,
    }
}

/// Writes `t` as epoch seconds with exactly seven decimals (`%.7f`), from
/// the integer parts so no float rounding creeps into the last digits.
#[cfg(any(feature = "json", feature = "prof"))]
pub(crate) fn push_epoch_7(t: std::time::SystemTime, out: &mut String) {
    let d = match t.duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => d,
        Err(e) => {
            out.push('-');
            e.duration()
        }
    };
    push_decimal::<7>(d.as_secs(), d.subsec_nanos() / 100, out);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(d: Duration) -> String {
        let mut out = String::new();
        push_epoch::<3>(Ok(d), &mut out);
        out
    }

    #[test]
    fn integers_and_padding() {
        // Each side of every power of ten, and into a line with room to
        // spare (the whole-buffer copy) as well as into a full one.
        let mut numbers = vec![0, 7, 12345, 123456, u64::MAX];
        for p in 1..20 {
            let ten = 10u64.pow(p);
            numbers.extend([ten - 1, ten, ten + 1, ten / 7 * 9]);
        }
        for n in numbers {
            for room in [0, 64] {
                let mut out = String::with_capacity(room);
                out.push('>');
                assert_eq!(push_u64(n, &mut out), n.to_string().len());
                assert_eq!(out, format!(">{n}"));
                let mut out = String::with_capacity(room);
                out.push('>');
                push_u64_left(n, 5, &mut out);
                assert_eq!(out, format!(">{n:<5}"));
                let mut out = String::with_capacity(room);
                pad(n as usize % 25, 20, &mut out);
                assert_eq!(out, " ".repeat(20usize.saturating_sub(n as usize % 25)));
            }
        }
        for n in [i64::MIN, -1, 0, 42, i64::MAX] {
            let mut out = String::new();
            push_i64(n, &mut out);
            assert_eq!(out, n.to_string());
        }
    }

    #[test]
    fn known_times() {
        let d = |s, n| text(Duration::new(s, n));
        assert_eq!(d(1_796_066_819, 926_123_456), "1796066819.926");
        assert_eq!(d(0, 0), "0.000");
        assert_eq!(d(5, 4_000_000), "5.004");
        // Past the half millisecond: up (truncation would give .926).
        assert_eq!(d(1_796_066_819, 926_600_000), "1796066819.927");
        // Carry into the seconds.
        assert_eq!(d(41, 999_700_000), "42.000");
        // An exact binary tie rounds to even, as Python's "%.3f" % 0.0625.
        assert_eq!(d(0, 62_500_000), "0.062");
        assert_eq!(d(0, 187_500_000), "0.188");
        // Before 1970.
        let mut out = String::new();
        push_epoch::<3>(Err(Duration::from_millis(2_250)), &mut out);
        assert_eq!(out, "-2.250");
    }

    #[test]
    fn far_future_times_are_written_without_overflow() {
        let near_half = [0, 1, 499_999_999, 500_000_000, 500_000_001, 999_999_999];
        for secs in [1 << 34, (1 << 34) + 1, 1 << 40, (1 << 42) - 1] {
            for nanos in near_half {
                let d = Duration::new(secs, nanos);
                assert_eq!(text(d), format!("{:.3}", d.as_secs_f64()), "{d:?}");
            }
        }
        // Later, where a float step passes a millisecond: the exact
        // millisecond or the next, up to the latest time a SystemTime
        // holds here (`secs * 1000` overflows a u64 past 2^64 / 1000).
        for secs in [
            1 << 42,
            1 << 52,
            (1 << 53) + 1,
            u64::MAX / 1000 + 1,
            i64::MAX as u64,
        ] {
            for nanos in near_half {
                let d = Duration::new(secs, nanos);
                let t = text(d);
                let (s, ms) = t.split_once('.').expect("a dot");
                assert_eq!(ms.len(), 3, "{t}");
                let got = s.parse::<u128>().unwrap() * 1000 + ms.parse::<u128>().unwrap();
                let exact = u128::from(secs) * 1000 + u128::from(nanos / 1_000_000);
                assert!(got == exact || got == exact + 1, "{d:?}: {t}");
            }
        }
    }

    /// A reproducible stream of pseudo-random numbers.
    fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
        move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        }
    }

    /// The same text as `{:.3}` of the float, near every kind of boundary.
    #[test]
    fn matches_float_formatting() {
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        for i in 0..200_000u64 {
            let secs = match i % 4 {
                0 => next() % 4_000_000_000,
                1 => 1_700_000_000 + next() % 200_000_000,
                2 => next() % 1000,
                _ => next() % (1 << 40),
            };
            let nanos = match i % 3 {
                // Within a few us of a half millisecond.
                0 => {
                    ((next() % 1000) as u32) * 1_000_000 + 500_000 - 5_000
                        + (next() % 10_000) as u32
                }
                1 => (next() % 16) as u32 * 62_500_000,
                _ => (next() % 1_000_000_000) as u32,
            };
            let d = Duration::new(secs, nanos);
            assert_eq!(text(d), format!("{:.3}", d.as_secs_f64()), "{d:?}");
        }
    }

    /// Six decimals (JSON lines), against the float's own text: near the
    /// half microsecond, at binary ties (0.0078125 s is one), and
    /// anywhere, for every time before 2^33 s, and before 1970.
    #[test]
    fn six_decimals_match_float_formatting() {
        let micro = |d: Result<Duration, Duration>| {
            let mut out = String::new();
            push_epoch::<6>(d, &mut out);
            out
        };
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        for i in 0..200_000u64 {
            let secs = match i % 3 {
                0 => 1_700_000_000 + next() % 200_000_000,
                1 => next() % 1000,
                _ => next() % (1 << 33),
            };
            let nanos = match i % 3 {
                0 => ((next() % 1_000_000) as u32) * 1000 + 500 - 20 + (next() % 40) as u32,
                1 => (next() % 128) as u32 * 7_812_500,
                _ => (next() % 1_000_000_000) as u32,
            };
            let d = Duration::new(secs, nanos);
            assert_eq!(micro(Ok(d)), format!("{:.6}", d.as_secs_f64()), "{d:?}");
        }
        assert_eq!(micro(Ok(Duration::new(41, 999_999_700))), "42.000000");
        assert_eq!(micro(Err(Duration::from_millis(2_250))), "-2.250000");
    }
}
