//! Integers and `%.3f` timestamps written by hand: a RADICAL header costs
//! a few dozen instructions instead of the `fmt` machinery's hundreds
//! (and no `f64` formatting at all).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

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
/// before it), as epoch seconds with three decimals: exactly the text of
/// `format!("{:.3}", d.as_secs_f64())`, which is also Python's
/// `"%.3f" % t` of the same float (both round the binary value to the
/// nearest millisecond, ties to even). radical.utils writes `%.3f` of
/// `time.time()`, so a line rounds up at the half millisecond, not down.
///
/// Integer seconds and milliseconds are written directly; only a time
/// within a rounding error of a half millisecond consults the float, and
/// then by exact integer comparison. That holds for every time before
/// 2^42 s (about 139,000 years), where a step of the float reaches a
/// millisecond; a later time is written as its exact millisecond, or the
/// next, and never panics (`secs * 1000` needs more than 64 bits from
/// 2^64 / 1000 s on, which a `SystemTime` can hold).
pub(crate) fn push_epoch_3(since_epoch: Result<Duration, Duration>, out: &mut String) {
    match since_epoch {
        Ok(d) => {
            let (secs, millis) = round_millis(d);
            let mut line = [0u8; DIGITS_END + 24];
            let at = digits_into(secs, &mut line);
            let m = millis as usize;
            let n = DIGITS_END;
            line[n] = b'.';
            line[n + 1] = b'0' + (m / 100) as u8;
            line[n + 2] = PAIRS[m % 100 * 2];
            line[n + 3] = PAIRS[m % 100 * 2 + 1];
            push_ascii::<24, _>(&line, at, n + 4 - at, out);
        }
        // Before 1970: not worth a fast path.
        Err(before) => {
            use std::fmt::Write;
            let _ = write!(out, "{:.3}", -before.as_secs_f64());
        }
    }
}

/// `d` rounded to milliseconds as `{:.3}` of `d.as_secs_f64()` rounds it:
/// (seconds, milliseconds 0..=999).
pub(crate) fn round_millis(d: Duration) -> (u64, u32) {
    let secs = d.as_secs();
    let nanos = d.subsec_nanos();
    let ms = nanos / 1_000_000;
    let rem = nanos % 1_000_000;
    // The float is within a few hundred ns of the exact time for any date
    // before the year 2500 (an ulp at 2^34 s is 2 us): far from the
    // half millisecond, the exact time decides; near it, the float does.
    let up = if secs < 1 << 34 && rem.abs_diff(500_000) > 4_000 {
        rem > 500_000
    } else {
        float_rounds_up(d.as_secs_f64(), u128::from(secs) * 1000 + u128::from(ms))
    };
    match (up, ms) {
        (false, ms) => (secs, ms),
        (true, 999) => (secs + 1, 0),
        (true, ms) => (secs, ms + 1),
    }
}

/// Whether `x` rounds to `k + 1` rather than `k` thousandths, `k` being the
/// exact time's floor: compares `x` with the midpoint `(2k + 1) / 2000`
/// exactly, in integers, ties to even.
fn float_rounds_up(x: f64, k: u128) -> bool {
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
    // x = m * 2^e; compare m * 2000 with (2k + 1) * 2^-e.
    let lhs = u128::from(m) * 2000;
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
pub(crate) fn push_epoch_7(t: SystemTime, out: &mut String) {
    let (sign, d) = match t.duration_since(UNIX_EPOCH) {
        Ok(d) => ("", d),
        Err(e) => ("-", e.duration()),
    };
    use std::fmt::Write;
    let _ = write!(out, "{sign}{}.{:07}", d.as_secs(), d.subsec_nanos() / 100);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(d: Duration) -> String {
        let mut out = String::new();
        push_epoch_3(Ok(d), &mut out);
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
        push_epoch_3(Err(Duration::from_millis(2_250)), &mut out);
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

    /// The same text as `{:.3}` of the float, near every kind of boundary.
    #[test]
    fn matches_float_formatting() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
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
}
