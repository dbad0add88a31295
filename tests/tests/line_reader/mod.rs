//! A reference reader for the RADICAL and Compact layouts, written from the
//! documented rules (not from the formatter's code): it reads a line back
//! into its columns, target and fields, and fails on anything ambiguous.
//! Included by the format tests with `mod line_reader;`.

#![allow(dead_code)]

/// The lines of `text` as Python's `str.splitlines()` cuts them: at `\n`,
/// `\r`, `\r\n`, `\x0b`, `\x0c`, `\x1c`, `\x1d`, `\x1e`, U+0085, U+2028,
/// U+2029.
pub(crate) fn splitlines(text: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let brk = matches!(
            c,
            '\n' | '\r'
                | '\u{0b}'
                | '\u{0c}'
                | '\u{1c}'
                | '\u{1d}'
                | '\u{1e}'
                | '\u{85}'
                | '\u{2028}'
                | '\u{2029}'
        );
        if brk {
            lines.push(&text[start..i]);
            let mut next = i + c.len_utf8();
            if c == '\r' {
                if let Some(&(j, '\n')) = chars.peek() {
                    chars.next();
                    next = j + 1;
                }
            }
            start = next;
        }
    }
    if start < text.len() {
        lines.push(&text[start..]);
    }
    lines
}

/// Undoes the escapes of a name, message or quoted value: `\\`, `\"`, `\n`,
/// `\r`, `\t`, `\u{hex}`.
pub(crate) fn unescape(s: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('\\') => out.push('\\'),
            Some('"') => out.push('"'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('u') => {
                if chars.next() != Some('{') {
                    return Err(format!("bad \\u escape in {s:?}"));
                }
                let hex: String = chars.by_ref().take_while(|&c| c != '}').collect();
                let n = u32::from_str_radix(&hex, 16).map_err(|e| format!("{e} in {s:?}"))?;
                out.push(char::from_u32(n).ok_or(format!("bad char {n:x}"))?);
            }
            other => return Err(format!("unknown escape {other:?} in {s:?}")),
        }
    }
    Ok(out)
}

/// One line read back.
#[derive(Debug, PartialEq)]
pub(crate) struct Parsed {
    /// The time column as written.
    pub(crate) time: String,
    /// The target, unescaped.
    pub(crate) target: String,
    /// pid and thread columns (RADICAL only).
    pub(crate) pid: Option<u64>,
    pub(crate) tid: Option<u64>,
    /// The level column, trimmed.
    pub(crate) level: String,
    /// The message as written (escaped).
    pub(crate) message: String,
    /// The fields, in order, keys and values unescaped.
    pub(crate) fields: Fields,
}

fn column<'a>(rest: &mut &'a str, width: usize) -> Result<&'a str, String> {
    let (col, tail) = rest
        .split_once(" : ")
        .ok_or_else(|| format!("no ` : ` after {rest:?}"))?;
    if col.chars().count() < width {
        return Err(format!("column {col:?} narrower than {width}"));
    }
    *rest = tail;
    Ok(col)
}

/// A left-aligned column: the value, then spaces up to `width`.
fn padded(col: &str, width: usize) -> Result<&str, String> {
    let value = col.trim_end_matches(' ');
    if value.chars().count() < width && col.chars().count() != width {
        return Err(format!("column {col:?} not padded to {width}"));
    }
    if value.chars().count() >= width && value.len() != col.len() {
        return Err(format!("column {col:?} padded past {width}"));
    }
    Ok(value)
}

/// Reads a RADICAL line (without its `\n`) that carries `n_fields` fields.
pub(crate) fn parse_radical(line: &str, n_fields: usize) -> Result<Parsed, String> {
    let (time, mut rest) = line.split_once(" : ").ok_or("no time column")?;
    // The name is one token without spaces, then padding to 20.
    let name_end = rest.find(' ').ok_or("no end of name")?;
    let name = &rest[..name_end];
    let name_col = rest[..].split_once(" : ").ok_or("no name column")?.0;
    if padded(name_col, 20)? != name {
        return Err(format!("name column {name_col:?}"));
    }
    rest = &rest[name_col.len() + 3..];
    let pid = padded(column(&mut rest, 5)?, 5)?;
    let tid = padded(column(&mut rest, 5)?, 5)?;
    let level_col = column(&mut rest, 8)?;
    if level_col.len() != 8 {
        return Err(format!("level column {level_col:?} is not 8 wide"));
    }
    let (message, fields) = parse_fields(rest, n_fields)?;
    Ok(Parsed {
        time: time.to_owned(),
        target: unescape(name)?,
        pid: Some(pid.parse().map_err(|e| format!("pid {pid:?}: {e}"))?),
        tid: Some(tid.parse().map_err(|e| format!("tid {tid:?}: {e}"))?),
        level: level_col.trim_end().to_owned(),
        message: message.to_owned(),
        fields,
    })
}

/// Reads a Compact line (without its `\n`) that carries `n_fields` fields.
pub(crate) fn parse_compact(line: &str, n_fields: usize) -> Result<Parsed, String> {
    let (time, rest) = line.split_once(' ').ok_or("no time")?;
    if rest.len() < 6 || !rest.is_char_boundary(6) || &rest[5..6] != " " {
        return Err(format!("level column in {rest:?}"));
    }
    let level = rest[..5].trim_end();
    let rest = &rest[6..];
    let (target, rest) = rest.split_once(' ').ok_or("no end of target")?;
    let target = target.strip_suffix(':').ok_or("target without `:`")?;
    let (message, fields) = parse_fields(rest, n_fields)?;
    Ok(Parsed {
        time: time.to_owned(),
        target: unescape(target)?,
        pid: None,
        tid: None,
        level: level.to_owned(),
        message: message.to_owned(),
        fields,
    })
}

/// Fields read back: (key, value), unescaped.
pub(crate) type Fields = Vec<(String, String)>;

/// Splits `rest` into the message and its last `n` ` key=value` fields,
/// reading from the right: a quoted token starts at the `"` that no
/// backslash escapes; an unquoted one holds no space, `=`, `"` or `\`.
pub(crate) fn parse_fields(rest: &str, n: usize) -> Result<(&str, Fields), String> {
    let mut end = rest.len();
    let mut fields = Vec::new();
    for _ in 0..n {
        let s = &rest[..end];
        let (value, value_start) = token_before(s, b'=')?;
        if value_start == 0 || s.as_bytes()[value_start - 1] != b'=' {
            return Err(format!("no `=` before value in {s:?}"));
        }
        let (key, key_start) = token_before(&s[..value_start - 1], b' ')?;
        if key_start == 0 || s.as_bytes()[key_start - 1] != b' ' {
            return Err(format!("no space before key in {s:?}"));
        }
        fields.push((key, value));
        end = key_start - 1;
    }
    fields.reverse();
    Ok((&rest[..end], fields))
}

/// The key or value that ends `s`: (its text, unescaped; where it starts).
/// An unquoted token runs back to the byte `stop`.
fn token_before(s: &str, stop: u8) -> Result<(String, usize), String> {
    let b = s.as_bytes();
    if b.last() == Some(&b'"') && b.len() >= 2 {
        let mut j = b.len() - 1;
        loop {
            if j == 0 {
                return Err(format!("no opening quote in {s:?}"));
            }
            j -= 1;
            if b[j] == b'"' {
                let slashes = b[..j].iter().rev().take_while(|&&c| c == b'\\').count();
                if slashes % 2 == 0 {
                    break;
                }
            }
        }
        let inner = &s[j + 1..s.len() - 1];
        return Ok((unescape(inner)?, j));
    }
    let start = b.iter().rposition(|&c| c == stop).map_or(0, |p| p + 1);
    let token = &s[start..];
    if token.is_empty() || token.contains([' ', '=', '"', '\\']) {
        return Err(format!("bad unquoted token {token:?} in {s:?}"));
    }
    Ok((token.to_owned(), start))
}
