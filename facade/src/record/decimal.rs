//! Integers in decimal written by hand, two digits per division: cheaper
//! than the `fmt` machinery for line headers and message arguments alike.

use std::mem::MaybeUninit;

/// "00" to "99", for two digits per division.
pub(crate) const PAIRS: &[u8; 200] = b"\
0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// Where [`digits_into`] ends the digits: a `u64` has at most 20.
pub(crate) const DIGITS_END: usize = 20;

/// Writes `n`'s decimal digits to end at `buf[DIGITS_END]`; returns where
/// they start. The bytes after them are the caller's: a column's padding,
/// a fraction.
#[inline(always)]
pub(crate) fn digits_into<const N: usize>(mut n: u64, buf: &mut [u8; N]) -> usize {
    let mut i = DIGITS_END;
    // Four digits per division while there are more than four (half the
    // divisions of two at a time), then two.
    while n >= 10_000 {
        let four = (n % 10_000) as u32;
        n /= 10_000;
        let (hi, lo) = ((four / 100) as usize * 2, (four % 100) as usize * 2);
        i -= 4;
        buf[i] = PAIRS[hi];
        buf[i + 1] = PAIRS[hi + 1];
        buf[i + 2] = PAIRS[lo];
        buf[i + 3] = PAIRS[lo + 1];
    }
    let mut n = n as u32;
    if n >= 100 {
        let pair = (n % 100) as usize * 2;
        n /= 100;
        i -= 2;
        buf[i] = PAIRS[pair];
        buf[i + 1] = PAIRS[pair + 1];
    }
    if n >= 10 {
        let pair = n as usize * 2;
        i -= 2;
        buf[i] = PAIRS[pair];
        buf[i + 1] = PAIRS[pair + 1];
    } else {
        i -= 1;
        buf[i] = b'0' + n as u8;
    }
    i
}

/// Appends `len` bytes of `buf` from `at` on, which must be ASCII (digits,
/// `.`, spaces). Where the string has room for `N` bytes, `N` are copied
/// from `at` on, a few fixed moves, where a copy of `len` bytes is a call
/// to `memcpy`, which was most of the cost of a line header's short
/// columns. Without that room, only `len` are, so the string grows as
/// much as it did (a message allocates no more than before).
#[inline(always)]
pub(crate) fn push_ascii<const N: usize, const B: usize>(
    buf: &[u8; B],
    at: usize,
    len: usize,
    out: &mut String,
) {
    let Some(bytes) = buf.get(at..).and_then(|b| b.first_chunk::<N>()) else {
        debug_assert!(false, "callers leave {N} bytes after {at}");
        return;
    };
    let len = len.min(N);
    debug_assert!(bytes.is_ascii());
    // SAFETY: the bytes are ASCII, so the string stays UTF-8; `set_len`
    // covers only bytes written here.
    unsafe {
        let v = out.as_mut_vec();
        if v.capacity() - v.len() < N {
            v.extend_from_slice(&bytes[..len]);
            return;
        }
        let start = v.len();
        for (to, &b) in v.spare_capacity_mut()[..N].iter_mut().zip(bytes) {
            *to = MaybeUninit::new(b);
        }
        v.set_len(start + len);
    }
}

/// Appends `n` in decimal; returns the number of digits.
#[inline]
pub(crate) fn push_u64(n: u64, out: &mut String) -> usize {
    let mut buf = [0u8; 2 * DIGITS_END];
    let at = digits_into(n, &mut buf);
    push_ascii::<DIGITS_END, _>(&buf, at, DIGITS_END - at, out);
    DIGITS_END - at
}

/// Appends `n` in decimal, with a `-` when negative.
#[inline]
pub(crate) fn push_i64(n: i64, out: &mut String) {
    if n < 0 {
        out.push('-');
    }
    push_u64(n.unsigned_abs(), out);
}
