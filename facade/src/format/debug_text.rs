//! `{:?}` text of a field value (`key = ?value`), settled into a line.
//!
//! The `Debug` text of a string is already a quoted literal (`"alice"`);
//! quoting it again would print `user="\"alice\""`. When the whole text is
//! one Rust string literal, the layouts write the string it stands for,
//! quoted once (`user="alice"`, JSON `"alice"`, an OTLP string `alice`);
//! any other `Debug` text (`Some("a")`, `[1, 2]`, a struct) is a value as
//! before. The text is formatted straight into the line and rewritten only
//! when it needs escapes, so a plain literal costs no allocation.

use std::borrow::Cow;

use super::escape;

/// The string `raw` stands for when it is exactly one Rust string literal
/// as `<str as Debug>` writes it (`"a\"b\n"`), else `None`: no text
/// outside the quotes, no unescaped quote inside, known escapes only.
pub(crate) fn string_literal(raw: &str) -> Option<Cow<'_, str>> {
    let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
    if !inner.contains(['"', '\\']) {
        return Some(Cow::Borrowed(inner));
    }
    let mut text = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return None,
            '\\' => text.push(match chars.next()? {
                'n' => '\n',
                'r' => '\r',
                't' => '\t',
                '0' => '\0',
                c @ ('\\' | '"' | '\'') => c,
                'u' => unicode_escape(&mut chars)?,
                _ => return None,
            }),
            c => text.push(c),
        }
    }
    Some(Cow::Owned(text))
}

/// The character of a `\u{hex}` escape, after the `u`.
fn unicode_escape(chars: &mut std::str::Chars<'_>) -> Option<char> {
    if chars.next()? != '{' {
        return None;
    }
    let (mut code, mut digits) = (0u32, 0);
    loop {
        match chars.next()? {
            '}' if digits > 0 => return char::from_u32(code),
            d if digits < 6 => {
                code = code * 16 + d.to_digit(16)?;
                digits += 1;
            }
            _ => return None,
        }
    }
}

/// Settles `out[start..]`, the raw `Debug` text of a value, as a
/// `key=value` value: a string literal as its string, always quoted;
/// anything else quoted and escaped as every value is (see
/// [`escape::quoted_str`]).
pub(crate) fn settle_plain(out: &mut String, start: usize) {
    let raw = &out[start..];
    match raw.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
        // `"text"` with nothing to escape inside: already what we write.
        Some(inside) if escape::needs(inside) != escape::Needs::Escapes => return,
        Some(_) => {}
        None => match escape::needs(raw) {
            escape::Needs::Nothing => return,
            escape::Needs::Quotes => {
                out.insert(start, '"');
                out.push('"');
                return;
            }
            escape::Needs::Escapes => {}
        },
    }
    let raw = out.split_off(start);
    match string_literal(&raw) {
        Some(text) => escape::always_quoted(&text, out),
        None => escape::quoted_str(&raw, out),
    }
}

/// Settles `out[start..]`, the raw `Debug` text of a value, as a JSON
/// string: a string literal as its string, anything else as its text.
#[cfg(feature = "json")]
pub(crate) fn settle_json(out: &mut String, start: usize) {
    let raw = &out[start..];
    let inside = raw.strip_prefix('"').and_then(|r| r.strip_suffix('"'));
    if inside.is_some_and(json_clean) {
        return;
    }
    if inside.is_none() && json_clean(raw) {
        out.insert(start, '"');
        out.push('"');
        return;
    }
    let raw = out.split_off(start);
    let text = string_literal(&raw);
    super::json::string(text.as_deref().unwrap_or(&raw), out);
}

/// Whether `s` goes into a JSON string as it is: none of what
/// [`escape::JsonEscaped`] escapes.
#[cfg(feature = "json")]
fn json_clean(s: &str) -> bool {
    !s.chars()
        .any(|c| c == '"' || c == '\\' || escape::breaks_line(c))
}

/// The text an OTLP string attribute carries for a `Debug` value.
#[cfg(any(feature = "otlp", test))]
pub(crate) fn otlp_string(raw: String) -> String {
    match string_literal(&raw) {
        Some(Cow::Owned(text)) => text,
        Some(Cow::Borrowed(text)) => text.to_owned(),
        None => raw,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_literals_decode_and_other_text_does_not() {
        let cases: [(&str, Option<&str>); 14] = [
            (r#""alice""#, Some("alice")),
            (r#""""#, Some("")),
            (r#""a b = c""#, Some("a b = c")),
            (r#""say \"hi\"\\""#, Some("say \"hi\"\\")),
            (r#""l1\nl2\r\t\0""#, Some("l1\nl2\r\t\0")),
            (r#""\u{2028}\u{1f600}""#, Some("\u{2028}\u{1f600}")),
            (r#""it\'s""#, Some("it's")),
            (r#"Some("a")"#, None),
            (r#""a", "b""#, None),
            (r#""a"b""#, None),
            (r#"""#, None),
            (r#""bad \q""#, None),
            (r#""\u{110000}""#, None),
            (r#""\u{}""#, None),
        ];
        for (raw, want) in cases {
            assert_eq!(string_literal(raw).as_deref(), want, "{raw}");
        }
        // What Debug writes for any string decodes back to it.
        for s in [
            "",
            "alice",
            "a\"b",
            "\\",
            "x\ny",
            "\u{2028}",
            "\u{7f}\u{85}",
            "é ü",
        ] {
            assert_eq!(string_literal(&format!("{s:?}")).as_deref(), Some(s));
        }
    }

    fn plain(v: &dyn std::fmt::Debug) -> String {
        let mut out = String::from("k=");
        let start = out.len();
        std::fmt::Write::write_fmt(&mut out, format_args!("{v:?}")).unwrap();
        settle_plain(&mut out, start);
        out
    }

    #[test]
    fn plain_values_quote_a_debug_string_once() {
        assert_eq!(plain(&"alice"), r#"k="alice""#);
        assert_eq!(plain(&"/tmp/t"), r#"k="/tmp/t""#);
        assert_eq!(plain(&""), r#"k="""#);
        assert_eq!(plain(&"a \"b\""), r#"k="a \"b\"""#);
        assert_eq!(plain(&"x\ny\u{2028}"), r#"k="x\ny\u{2028}""#);
        assert_eq!(plain(&String::from("s")), r#"k="s""#);
        // Not a string literal: as every other value.
        assert_eq!(plain(&Some(3)), "k=Some(3)");
        assert_eq!(plain(&[1, 2]), r#"k="[1, 2]""#);
        assert_eq!(plain(&Some("a")), r#"k="Some(\"a\")""#);
        assert_eq!(plain(&'c'), "k='c'");
    }

    #[cfg(feature = "json")]
    #[test]
    fn json_values_hold_a_debug_string_as_its_string() {
        let json = |v: &dyn std::fmt::Debug| {
            let mut out = String::new();
            std::fmt::Write::write_fmt(&mut out, format_args!("{v:?}")).unwrap();
            settle_json(&mut out, 0);
            out
        };
        assert_eq!(json(&"alice"), r#""alice""#);
        assert_eq!(json(&"a\"b\n\u{2028}"), r#""a\"b\n\u2028""#);
        assert_eq!(json(&Some(3)), r#""Some(3)""#);
        assert_eq!(json(&Some("a")), r#""Some(\"a\")""#);
        for s in ["alice", "a\"b\\c", "x\ny\t\u{0}", "\u{2028}é"] {
            let v: String = serde_json_free_decode(&json(&s));
            assert_eq!(v, s);
        }
    }

    /// The string a JSON string literal stands for (the escapes JSON
    /// output uses), so the test needs no JSON parser.
    #[cfg(feature = "json")]
    fn serde_json_free_decode(lit: &str) -> String {
        let inner = &lit[1..lit.len() - 1];
        let mut out = String::new();
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            if c != '\\' {
                out.push(c);
                continue;
            }
            match chars.next().unwrap() {
                'n' => out.push('\n'),
                'r' => out.push('\r'),
                't' => out.push('\t'),
                'b' => out.push('\u{8}'),
                'f' => out.push('\u{c}'),
                'u' => {
                    let hex: String = chars.by_ref().take(4).collect();
                    out.push(char::from_u32(u32::from_str_radix(&hex, 16).unwrap()).unwrap());
                }
                c => out.push(c),
            }
        }
        out
    }

    #[test]
    fn otlp_strings_are_the_string() {
        assert_eq!(otlp_string(format!("{:?}", "a\"b")), "a\"b");
        assert_eq!(otlp_string(format!("{:?}", Some(1))), "Some(1)");
    }
}
