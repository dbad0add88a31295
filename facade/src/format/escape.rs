//! Escaping, so that one record is one line and no text can be read back as
//! another column or another `key=value` pair.
//!
//! A line ends, for Python's `str.splitlines()` (which RADICAL's tools use),
//! at `\n`, `\r`, `\x0b`, `\x0c`, `\x1c`..`\x1e`, U+0085, U+2028 and U+2029.
//! Every one of them is a control character or a Unicode line/paragraph
//! separator, and all of those are escaped in every layout: `\n`, `\r`,
//! `\t`, else `\u{hex}` (JSON writes `\uXXXX`).
//!
//! The scans copy runs of harmless bytes whole and look closer only at bytes
//! that can start a character to escape: ASCII controls, DEL, and the UTF-8
//! lead bytes `0xC2` (U+0080..U+00BF, the C1 controls) and `0xE2`
//! (U+2000..U+2FFF, the separators).

use std::fmt;

/// Whether `c` must never appear raw inside a line: a control character
/// (C0, DEL, C1 including U+0085) or U+2028 / U+2029.
#[inline]
pub(crate) fn breaks_line(c: char) -> bool {
    c.is_control() || matches!(c, '\u{2028}' | '\u{2029}')
}

/// Byte classes, one bit per use: bytes that can start a line-breaking
/// character (ASCII controls, DEL, and the lead bytes `0xC2`, `0xE2`)...
const TEXT: u8 = 1;
/// ... bytes that can start a character forcing quotes (those and space,
/// `=`, `"`, `\`) ...
const QUOTE: u8 = 2;
/// ... and bytes a name column looks at (those of `TEXT`, space, `\`, and
/// every non-ASCII byte, for the width count).
const NAME: u8 = 4;

/// ... and bytes a JSON string looks at (those of `TEXT`, `"` and `\`).
const JSON: u8 = 8;

/// ... and bytes a `.prof` column looks at (those of `TEXT`, and `,`).
const PROF: u8 = 16;

/// The class bits of every byte value, so a scan is one load per byte.
static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let text = b < 0x20 || b == 0x7f || b == 0xc2 || b == 0xe2;
        let mut c = 0;
        if text {
            c |= TEXT | QUOTE | NAME | JSON | PROF;
        }
        if b == b',' as usize {
            c |= PROF;
        }
        if b == b' ' as usize || b == b'\\' as usize {
            c |= QUOTE | NAME;
        }
        if b == b'=' as usize || b == b'"' as usize {
            c |= QUOTE;
        }
        if b == b'"' as usize || b == b'\\' as usize {
            c |= JSON;
        }
        if b >= 0x80 {
            c |= NAME;
        }
        t[b] = c;
        b += 1;
    }
    t
};

/// The index of the first byte of `bytes` from `i` on with a bit of `class`.
/// Eight bytes at a time while none of them can be of `class` (a target or
/// a message is mostly such words), byte by byte through a word that may.
#[inline(always)]
fn skip(bytes: &[u8], mut i: usize, class: u8) -> usize {
    while let Some(word) = bytes.get(i..).and_then(|rest| rest.first_chunk::<8>()) {
        if may_hold(u64::from_le_bytes(*word), class) {
            for (k, &b) in word.iter().enumerate() {
                if CLASS[b as usize] & class != 0 {
                    return i + k;
                }
            }
        }
        i += 8;
    }
    // The tail: the last eight bytes at once (overlapping bytes already
    // read) when the text is that long; byte by byte if they may hold one.
    if let Some(last) = bytes.last_chunk::<8>() {
        if i < bytes.len() && !may_hold(u64::from_le_bytes(*last), class) {
            return bytes.len();
        }
    }
    while i < bytes.len() && CLASS[bytes[i] as usize] & class == 0 {
        i += 1;
    }
    i
}

/// Whether one of the eight bytes of `w` may be of `class`: never false
/// for a word that holds one (a word it wrongly suspects is only scanned
/// byte by byte). Bit tricks over the whole word: a byte below `n`, a byte
/// equal to `b`, a byte from 0x7F up (DEL and every non-ASCII byte, which
/// covers the lead bytes 0xC2 and 0xE2).
#[inline(always)]
fn may_hold(w: u64, class: u8) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // Each term sets the top bit of a byte that may match; one test of
    // their union, no branch per term.
    let below = |n: u8| w.wrapping_sub(ONES * n as u64) & !w;
    let equal = |b: u8| {
        let x = w ^ (ONES * b as u64);
        x.wrapping_sub(ONES) & !x
    };
    let high = w | w.wrapping_add(ONES);
    let may = match class {
        TEXT => high | below(0x20),
        NAME => high | below(0x21) | equal(b'\\'),
        JSON => high | below(0x20) | equal(b'\\') | equal(b'"'),
        PROF => high | below(0x20) | equal(b','),
        _ => high | below(0x21) | equal(b'\\') | equal(b'=') | equal(b'"'),
    };
    may & HIGH != 0
}

/// Appends the escape of `c`: `\n`, `\r`, `\t`, else `\u{hex}`.
pub(crate) fn push_escape(c: char, out: &mut String) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c => {
            out.push_str("\\u{");
            push_hex(c as u32, out);
            out.push('}');
        }
    }
}

/// Lower-case hex digits of `n`, no leading zeros.
fn push_hex(n: u32, out: &mut String) {
    let digits = (32 - (n | 1).leading_zeros()).div_ceil(4);
    for i in (0..digits).rev() {
        let d = (n >> (i * 4)) & 0xf;
        out.push(char::from_digit(d, 16).unwrap_or('0'));
    }
}

/// Copies `s` to `out`, writing each character `escape` selects with
/// `push`; the bytes of `class` are those that can start such a character.
/// A text without any (the common case, found by one word-at-a-time scan)
/// is copied at once, and runs of other characters whole.
#[inline(always)]
fn copy_escaping(
    s: &str,
    out: &mut String,
    class: u8,
    escape: impl Fn(char) -> bool,
    push: impl Fn(char, &mut String),
) {
    let i = skip(s.as_bytes(), 0, class);
    if i == s.len() {
        out.push_str(s);
    } else {
        escape_from(s, i, out, class, escape, push);
    }
}

/// [`copy_escaping`] from byte `i` on, the first of `class`: out of line,
/// so the common case stays small where it is inlined.
#[inline(never)]
fn escape_from(
    s: &str,
    mut i: usize,
    out: &mut String,
    class: u8,
    escape: impl Fn(char) -> bool,
    push: impl Fn(char, &mut String),
) {
    let bytes = s.as_bytes();
    let mut run = 0;
    while i < bytes.len() {
        if CLASS[bytes[i] as usize] & class == 0 {
            i += 1;
            continue;
        }
        let c = s[i..].chars().next().unwrap_or('\0');
        let n = c.len_utf8();
        if escape(c) {
            out.push_str(&s[run..i]);
            push(c, out);
            run = i + n;
        }
        i += n;
    }
    out.push_str(&s[run..]);
}

/// Appends `s` with every line-breaking character escaped (messages).
#[inline]
pub(crate) fn escape_text(s: &str, out: &mut String) {
    copy_escaping(s, out, TEXT, breaks_line, push_escape);
}

/// Appends `s` as a `.prof` column: line breaks escaped and every `,` (the
/// column separator) written as `;`.
#[cfg(feature = "prof")]
pub(crate) fn prof_text(s: &str, out: &mut String) {
    copy_escaping(
        s,
        out,
        PROF,
        |c| c == ',' || breaks_line(c),
        |c, out| match c {
            ',' => out.push(';'),
            c => push_escape(c, out),
        },
    );
}

/// Escapes line-breaking characters (and nothing else) while writing to a
/// `String`: message text, where a line must stay one line but the words
/// are the user's.
///
/// ```
/// use std::fmt::Write;
/// let mut line = String::new();
/// write!(elide::format::Escaped(&mut line), "a\nb\u{2028}c").unwrap();
/// assert_eq!(line, "a\\nb\\u{2028}c");
/// ```
#[derive(Debug)]
pub struct Escaped<'a>(pub &'a mut String);

impl fmt::Write for Escaped<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        escape_text(s, self.0);
        Ok(())
    }
}

/// Appends a name column (a target): line breaks escaped, and also space
/// (`\u{20}`) and backslash (`\\`), so the name is one space-free token that
/// reads back unambiguously. Returns its width in characters, for padding
/// without a second pass.
pub(crate) fn escape_name(s: &str, out: &mut String) -> usize {
    let bytes = s.as_bytes();
    let mut width = 0;
    let mut run = 0;
    let mut i = 0;
    loop {
        let plain = skip(bytes, i, NAME);
        width += plain - i;
        i = plain;
        if i == bytes.len() {
            break;
        }
        let b = bytes[i];
        let c = s[i..].chars().next().unwrap_or('\0');
        let n = c.len_utf8();
        if b == b' ' || b == b'\\' || breaks_line(c) {
            out.push_str(&s[run..i]);
            let before = out.len();
            match c {
                '\\' => out.push_str("\\\\"),
                ' ' => out.push_str("\\u{20}"),
                c => push_escape(c, out),
            }
            width += out.len() - before;
            run = i + n;
        } else {
            width += 1;
        }
        i += n;
    }
    out.push_str(&s[run..]);
    width
}

/// Writes a `key=value` key or value: quoted when it is empty or holds a
/// space, `=`, `"`, `\` or a line-breaking character, with `"`, `\` and
/// line breaks escaped inside the quotes; verbatim otherwise. The same rule
/// for every kind of value (strings, `%x`, `?x`, chars) and for keys, so no
/// text can be read back as another pair.
///
/// The text is streamed (a `Display` impl may write it in pieces): an
/// opening quote is written first and removed at the end if the value
/// turned out not to need it.
pub(crate) struct Quoted<'a> {
    out: &'a mut String,
    start: usize,
    needs_quotes: bool,
}

impl<'a> Quoted<'a> {
    /// Starts a value at the end of `out`.
    pub(crate) fn begin(out: &'a mut String) -> Quoted<'a> {
        let start = out.len();
        out.push('"');
        Quoted {
            out,
            start,
            needs_quotes: false,
        }
    }

    /// Ends the value: closes the quotes, or removes the opening one.
    pub(crate) fn end(self) {
        if self.needs_quotes || self.out.len() == self.start + 1 {
            self.out.push('"');
        } else {
            self.out.remove(self.start);
        }
    }
}

impl fmt::Write for Quoted<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let needs = &mut self.needs_quotes;
        let bytes = s.as_bytes();
        let mut run = 0;
        let mut i = 0;
        loop {
            i = skip(bytes, i, QUOTE);
            if i == bytes.len() {
                break;
            }
            let c = s[i..].chars().next().unwrap_or('\0');
            let n = c.len_utf8();
            match c {
                ' ' | '=' => *needs = true,
                '"' | '\\' => {
                    *needs = true;
                    self.out.push_str(&s[run..i]);
                    self.out.push('\\');
                    self.out.push(c);
                    run = i + n;
                }
                c if breaks_line(c) => {
                    *needs = true;
                    self.out.push_str(&s[run..i]);
                    push_escape(c, self.out);
                    run = i + n;
                }
                _ => {}
            }
            i += n;
        }
        self.out.push_str(&s[run..]);
        Ok(())
    }
}

/// Writes `s` as a `key=value` key or value (see [`Quoted`]).
pub(crate) fn quoted_str(s: &str, out: &mut String) {
    if !s.is_empty() && skip(s.as_bytes(), 0, QUOTE) == s.len() {
        out.push_str(s);
        return;
    }
    let mut q = Quoted::begin(out);
    let _ = fmt::Write::write_str(&mut q, s);
    q.end();
}

/// What a `key=value` value needs (see [`Quoted`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Needs {
    /// Nothing: written verbatim.
    Nothing,
    /// Quotes only (it is empty, or holds a space or `=`).
    Quotes,
    /// Quotes and escapes (it holds `"`, `\` or a line break).
    Escapes,
}

/// What `s` needs to be written as a `key=value` value.
pub(crate) fn needs(s: &str) -> Needs {
    let bytes = s.as_bytes();
    let mut needs = if s.is_empty() {
        Needs::Quotes
    } else {
        Needs::Nothing
    };
    let mut i = 0;
    loop {
        i = skip(bytes, i, QUOTE);
        if i == bytes.len() {
            return needs;
        }
        let c = s[i..].chars().next().unwrap_or('\0');
        match c {
            ' ' | '=' => needs = Needs::Quotes,
            '"' | '\\' => return Needs::Escapes,
            c if breaks_line(c) => return Needs::Escapes,
            _ => {}
        }
        i += c.len_utf8();
    }
}

/// Writes `s` quoted even when [`quoted_str`] would leave it bare, with
/// the same escapes: for a value that was a quoted string where it came
/// from (a `Debug` string).
pub(crate) fn always_quoted(s: &str, out: &mut String) {
    let mut q = Quoted::begin(out);
    q.needs_quotes = true;
    let _ = fmt::Write::write_str(&mut q, s);
    q.end();
}

/// Escapes for the inside of a JSON string: `"`, `\`, every control
/// character, and U+2028 / U+2029 (valid JSON raw, but line breaks for
/// `splitlines()` and for JavaScript before ES2019).
#[cfg(feature = "json")]
pub(crate) struct JsonEscaped<'a>(pub(crate) &'a mut String);

#[cfg(feature = "json")]
impl fmt::Write for JsonEscaped<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        json_text(s, self.0);
        Ok(())
    }
}

/// Appends `s` escaped for the inside of a JSON string: `"`, `\` and
/// every line-breaking character.
#[cfg(feature = "json")]
pub(crate) fn json_text(s: &str, out: &mut String) {
    copy_escaping(
        s,
        out,
        JSON,
        |c| c == '"' || c == '\\' || breaks_line(c),
        |c, out| match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => {
                out.push_str("\\u");
                let n = c as u32;
                for shift in [12, 8, 4, 0] {
                    out.push(char::from_digit((n >> shift) & 0xf, 16).unwrap_or('0'));
                }
            }
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fmt::Write;

    /// The word-at-a-time scan stops where the byte-by-byte one does: every
    /// byte value at every place of a text, for each class, also after a
    /// word it wrongly suspects (a non-ASCII letter) and in the tail.
    #[test]
    fn the_word_scan_stops_at_the_same_byte_as_a_byte_scan() {
        let naive = |bytes: &[u8], class: u8| {
            (0..bytes.len())
                .find(|&i| CLASS[bytes[i] as usize] & class != 0)
                .unwrap_or(bytes.len())
        };
        for class in [TEXT, QUOTE, NAME, JSON, PROF] {
            for len in [0, 7, 8, 9, 15, 16, 21, 23] {
                for at in 0..len {
                    for b in 0..=255u8 {
                        let mut text = vec![b'a'; len];
                        text[at] = b;
                        assert_eq!(skip(&text, 0, class), naive(&text, class));
                        // A suspected word first: 'é' (two bytes >= 0x80)
                        // in front, which only `NAME` stops at.
                        let mut after = "é".as_bytes().to_vec();
                        after.extend_from_slice(&text);
                        assert_eq!(skip(&after, 0, class), naive(&after, class));
                        assert_eq!(skip(&after, 2, class), 2 + naive(&text, class));
                    }
                }
            }
        }
    }

    /// Every character Python's `str.splitlines()` splits on.
    const PY_LINE_BREAKS: [char; 11] = [
        '\n', '\r', '\u{0b}', '\u{0c}', '\u{1c}', '\u{1d}', '\u{1e}', '\u{85}', '\u{2028}',
        '\u{2029}', '\u{7f}',
    ];

    #[test]
    fn every_python_line_break_is_escaped_in_text_names_values_and_json() {
        for c in PY_LINE_BREAKS {
            let s = format!("a{c}b");
            let mut text = String::new();
            escape_text(&s, &mut text);
            let mut name = String::new();
            escape_name(&s, &mut name);
            let mut value = String::new();
            quoted_str(&s, &mut value);
            #[allow(unused_mut)]
            let mut json = String::new();
            #[cfg(feature = "json")]
            JsonEscaped(&mut json).write_str(&s).unwrap();
            for out in [&text, &name, &value, &json] {
                assert!(!out.contains(c), "{c:?} left raw in {out:?}");
                assert!(out.is_ascii(), "{out:?}");
            }
        }
        #[cfg(feature = "json")]
        {
            let mut json = String::new();
            JsonEscaped(&mut json).write_str("\u{2028}\u{85}").unwrap();
            assert_eq!(json, "\\u2028\\u0085");
        }
    }

    /// JSON strings: `"` and `\\` escaped, everything else that breaks no
    /// line copied as it is.
    #[cfg(feature = "json")]
    #[test]
    fn json_escapes_quotes_and_backslashes_only_besides_breaks() {
        for (s, want) in [
            ("say \"hi\"", "say \\\"hi\\\""),
            ("C:\\dir", "C:\\\\dir"),
            ("plain é = ü © → ok", "plain é = ü © → ok"),
            ("\"\\\n", "\\\"\\\\\\n"),
        ] {
            let mut out = String::new();
            JsonEscaped(&mut out).write_str(s).unwrap();
            assert_eq!(out, want, "{s:?}");
        }
    }

    /// The escape names the character exactly: shortest lower-case hex,
    /// one digit for U+0001 as for U+000F, six for the last plane.
    #[test]
    fn escapes_spell_the_code_point_in_hex() {
        for (c, want) in [
            ('\u{1}', "\\u{1}"),
            ('\u{0}', "\\u{0}"),
            ('\u{f}', "\\u{f}"),
            ('\u{10}', "\\u{10}"),
            ('\u{7f}', "\\u{7f}"),
            ('\u{85}', "\\u{85}"),
            ('\u{2028}', "\\u{2028}"),
            ('\u{10ffff}', "\\u{10ffff}"),
        ] {
            let mut out = String::new();
            push_escape(c, &mut out);
            assert_eq!(out, want, "{c:?}");
        }
    }

    #[test]
    fn harmless_text_is_copied_whole() {
        for s in ["plain", "é ü ©°", "\u{2030}\u{2000}", "a=b \"c\" \\"] {
            let mut out = String::new();
            escape_text(s, &mut out);
            assert_eq!(out, s);
        }
    }

    /// `Escaped` (public: a `fmt::Write` for the user's own sinks) escapes
    /// what it is given piece by piece, as `escape_text` does.
    #[test]
    fn the_escaping_writer_escapes_each_piece() {
        let mut out = String::from(">");
        let (separator, rest) = ('\u{2028}', String::from("d\re"));
        write!(Escaped(&mut out), "a\nb{separator}c{rest}").unwrap();
        assert_eq!(out, ">a\\nb\\u{2028}cd\\re");
    }

    #[test]
    fn names_escape_space_and_backslash_and_count_width() {
        let mut out = String::new();
        assert_eq!(escape_name("ra dical\\é\n", &mut out), 18);
        assert_eq!(out, "ra\\u{20}dical\\\\é\\n");
        assert_eq!(out.chars().count(), 18);
    }

    #[test]
    fn values_are_quoted_exactly_when_ambiguous() {
        let cases = [
            ("plain", "plain"),
            ("", "\"\""),
            ("a b", "\"a b\""),
            (" key=forged", "\" key=forged\""),
            ("k=v", "\"k=v\""),
            ("say \"hi\"", "\"say \\\"hi\\\"\""),
            ("back\\slash", "\"back\\\\slash\""),
            // Characters whose first byte the scan looks at closer (0xC2,
            // 0xE2) but which break nothing stay as they are.
            ("5€ ©→", "\"5€ ©→\""),
            ("°", "°"),
            ("line\nbreak", "\"line\\nbreak\""),
            ("sep\u{2028}", "\"sep\\u{2028}\""),
            ("é", "é"),
        ];
        for (raw, want) in cases {
            let mut out = String::from("k=");
            quoted_str(raw, &mut out);
            assert_eq!(out, format!("k={want}"), "{raw:?}");
        }
    }

    #[test]
    fn a_value_streamed_in_pieces_is_quoted_as_a_whole() {
        let mut out = String::new();
        let mut q = Quoted::begin(&mut out);
        q.write_str("abc").unwrap();
        q.write_str(" d\"").unwrap();
        q.end();
        assert_eq!(out, "\"abc d\\\"\"");
    }
}
