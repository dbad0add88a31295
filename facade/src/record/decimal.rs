//! Integers in decimal written by hand, two digits per division: cheaper
//! than the `fmt` machinery for line headers and message arguments alike.

/// "00" to "99", for two digits per division.
pub(crate) const PAIRS: &[u8; 200] = b"\
0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// Writes `n`'s decimal digits at the end of `buf`; returns where they start.
#[inline(always)]
pub(crate) fn digits_into(mut n: u64, buf: &mut [u8; 20]) -> usize {
    let mut i = buf.len();
    while n >= 100 {
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

/// Appends ASCII bytes.
#[inline(always)]
pub(crate) fn push_ascii(bytes: &[u8], out: &mut String) {
    debug_assert!(bytes.is_ascii());
    // SAFETY: callers pass ASCII digits, '.' and spaces only, which are
    // valid UTF-8 on their own.
    out.push_str(unsafe { std::str::from_utf8_unchecked(bytes) });
}

/// Appends `n` in decimal; returns the number of digits.
#[inline]
pub(crate) fn push_u64(n: u64, out: &mut String) -> usize {
    let mut buf = [0u8; 20];
    let i = digits_into(n, &mut buf);
    push_ascii(&buf[i..], out);
    buf.len() - i
}

/// Appends `n` in decimal, with a `-` when negative.
#[inline]
pub(crate) fn push_i64(n: i64, out: &mut String) {
    if n < 0 {
        out.push('-');
    }
    push_u64(n.unsigned_abs(), out);
}
