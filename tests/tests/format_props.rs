//! Property suite: arbitrary messages, targets, keys and values (every
//! control character, the Unicode line separators, long strings, lossy
//! invalid UTF-8) through every layout. Each record is exactly one line by
//! Python's `splitlines()`; RADICAL and Compact lines read back (with the
//! reference reader) to the same target and fields; JSON parses to the same
//! values; every `.prof` line has seven fields.
//!
//! `ELIDE_PROP_CASES` overrides the number of cases (default 10,000 per
//! layout, as CI runs it).

mod line_reader;

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, UNIX_EPOCH};

use elide::format::Format;
use elide::telemetry::ProfSink;
use elide::{Kind, Level, Metadata, Record, Sink, Value};
use line_reader::{parse_compact, parse_radical, splitlines, unescape};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

fn cases() -> u32 {
    std::env::var("ELIDE_PROP_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000)
}

/// Characters that matter to a line: every C0 and C1 control, DEL, the
/// Unicode separators, the layouts' delimiters, and anything else.
fn interesting_char() -> impl Strategy<Value = char> {
    prop_oneof![
        3 => (0u32..0x20).prop_map(|c| char::from_u32(c).unwrap()),
        2 => (0x7fu32..0xa0).prop_map(|c| char::from_u32(c).unwrap()),
        3 => prop::sample::select(vec![
            ' ', '=', '"', '\\', ':', ',', '\u{2028}', '\u{2029}', '\u{85}', '\u{FFFD}',
            'é', '}', '{', 'u',
        ]),
        6 => (0x21u8..0x7f).prop_map(char::from),
        2 => any::<char>(),
    ]
}

/// Short or long strings of those, or bytes that are not UTF-8 decoded
/// lossily.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => prop::collection::vec(interesting_char(), 0..24)
            .prop_map(|v| v.into_iter().collect::<String>()),
        2 => prop::collection::vec(any::<u8>(), 0..32)
            .prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
        // Long: a short piece repeated (cheap to generate, still every
        // kind of character).
        1 => (prop::collection::vec(interesting_char(), 1..12), 20usize..200)
            .prop_map(|(v, n)| v.into_iter().collect::<String>().repeat(n)),
    ]
}

/// Text that prints itself through `Display` and `Debug` (a `%x` / `?x`
/// field whose impl writes arbitrary text).
#[derive(Clone, Debug)]
struct Shown(String);
impl fmt::Display for Shown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
struct Raw<'a>(&'a str);
impl fmt::Debug for Raw<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

#[derive(Clone, Debug)]
enum Owned {
    Str(String),
    Display(Shown),
    Debug(String),
    Char(char),
    I64(i64),
    U64(u64),
    F64(f64),
    Bool(bool),
}

fn owned() -> impl Strategy<Value = Owned> {
    prop_oneof![
        4 => text().prop_map(Owned::Str),
        2 => text().prop_map(|s| Owned::Display(Shown(s))),
        2 => text().prop_map(Owned::Debug),
        1 => interesting_char().prop_map(Owned::Char),
        1 => any::<i64>().prop_map(Owned::I64),
        1 => any::<u64>().prop_map(Owned::U64),
        1 => any::<f64>().prop_map(Owned::F64),
        1 => any::<bool>().prop_map(Owned::Bool),
    ]
}

/// The string a Debug text stands for when it is exactly one Rust string
/// literal (`"a\"b"`), as `<str as Debug>` writes them; the test's own
/// reading of that rule.
fn string_literal(text: &str) -> Option<String> {
    let inner = text.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return None,
            '\\' => out.push(match chars.next()? {
                'n' => '\n',
                'r' => '\r',
                't' => '\t',
                '0' => '\0',
                c @ ('\\' | '"' | '\'') => c,
                'u' => {
                    if chars.next()? != '{' {
                        return None;
                    }
                    let mut hex = String::new();
                    loop {
                        match chars.next()? {
                            '}' => break,
                            d => hex.push(d),
                        }
                    }
                    if hex.is_empty() || hex.len() > 6 {
                        return None;
                    }
                    char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?
                }
                _ => return None,
            }),
            c => out.push(c),
        }
    }
    Some(out)
}

impl Owned {
    /// The text a `key=value` reader gets back.
    fn text(&self) -> String {
        match self {
            Owned::Str(s) | Owned::Display(Shown(s)) => s.clone(),
            // A Debug text that is one string literal is written as its
            // string (`user = ?name` gives `user="alice"`).
            Owned::Debug(s) => string_literal(s).unwrap_or_else(|| s.clone()),
            Owned::Char(c) => c.to_string(),
            Owned::I64(n) => n.to_string(),
            Owned::U64(n) => n.to_string(),
            Owned::F64(f) => f.to_string(),
            Owned::Bool(b) => b.to_string(),
        }
    }

    /// Whether JSON holds the same value.
    fn same_json(&self, j: &serde_json::Value) -> bool {
        match self {
            Owned::I64(n) => j.as_i64() == Some(*n),
            Owned::U64(n) => j.as_u64() == Some(*n),
            Owned::Bool(b) => j.as_bool() == Some(*b),
            // Exact: elide writes the shortest round-trip text and
            // serde_json parses it back exactly (`float_roundtrip`).
            Owned::F64(f) if f.is_finite() => j.as_f64() == Some(*f),
            other => j.as_str() == Some(other.text().as_str()),
        }
    }
}

#[derive(Clone, Debug)]
struct Case {
    target: String,
    message: String,
    fields: Vec<(String, Owned)>,
    level: Level,
    nanos: u64,
}

fn case() -> impl Strategy<Value = Case> {
    (
        text(),
        text(),
        prop::collection::vec((text(), owned()), 0..5),
        prop::sample::select(Level::ALL.to_vec()),
        0u64..4_000_000_000_000_000_000,
    )
        .prop_map(|(target, message, mut fields, level, nanos)| {
            // JSON objects keep one value per key.
            let mut seen = std::collections::HashSet::new();
            fields.retain(|(k, _)| seen.insert(k.clone()));
            Case {
                target,
                message,
                fields,
                level,
                nanos,
            }
        })
}

fn leak(s: &str) -> &'static str {
    Box::leak(s.to_owned().into_boxed_str())
}

/// Builds the case's record (metadata and keys leaked: they are `'static`
/// in a record) and hands it to `f`.
fn with_record<R>(c: &Case, kind: Kind, f: impl FnOnce(&Record<'_>) -> R) -> R {
    let meta: &'static Metadata = Box::leak(Box::new(Metadata::new(
        kind,
        c.level,
        leak(&c.target),
        "props",
        file!(),
        1,
        leak(&c.message),
    )));
    let raws: Vec<Raw<'_>> = c
        .fields
        .iter()
        .map(|(_, v)| match v {
            Owned::Debug(s) => Raw(s),
            _ => Raw(""),
        })
        .collect();
    let fields: Vec<(&'static str, Value<'_>)> = c
        .fields
        .iter()
        .zip(&raws)
        .map(|((k, v), raw)| {
            let value = match v {
                Owned::Str(s) => Value::Str(s),
                Owned::Display(d) => Value::Display(d),
                Owned::Debug(_) => Value::Debug(raw),
                Owned::Char(c) => Value::Char(*c),
                Owned::I64(n) => Value::I64(*n),
                Owned::U64(n) => Value::U64(*n),
                Owned::F64(x) => Value::F64(*x),
                Owned::Bool(b) => Value::Bool(*b),
            };
            (leak(k), value)
        })
        .collect();
    let message = &c.message;
    let args = format_args!("{message}");
    let record = Record::new(meta, c.level, args, &fields)
        .with_time(UNIX_EPOCH + Duration::from_nanos(c.nanos))
        .with_thread(7);
    f(&record)
}

fn one_line(line: &str) -> Result<&str, TestCaseError> {
    prop_assert!(line.ends_with('\n'), "no final newline: {line:?}");
    let lines = splitlines(line);
    prop_assert_eq!(lines.len(), 1, "{:?}", line);
    Ok(lines[0])
}

fn check_read_back(c: &Case, parsed: line_reader::Parsed) -> Result<(), TestCaseError> {
    prop_assert_eq!(&parsed.target, &c.target);
    let want: Vec<(String, String)> = c
        .fields
        .iter()
        .map(|(k, v)| (k.clone(), v.text()))
        .collect();
    prop_assert_eq!(&parsed.fields, &want);
    // The message is escaped but not quoted: exact when it has no `\`.
    if !c.message.contains('\\') {
        prop_assert_eq!(
            unescape(&parsed.message).map_err(TestCaseError::fail)?,
            c.message.clone()
        );
    }
    Ok(())
}

fn check_radical(c: &Case, r: &Record<'_>) -> Result<(), TestCaseError> {
    let mut line = String::new();
    Format::Radical.write(r, &mut line);
    let l = one_line(&line)?;
    let parsed = parse_radical(l, c.fields.len()).map_err(TestCaseError::fail)?;
    let secs = Duration::from_nanos(c.nanos).as_secs_f64();
    prop_assert_eq!(&parsed.time, &format!("{secs:.3}"));
    prop_assert_eq!(parsed.pid, Some(u64::from(std::process::id())));
    prop_assert_eq!(parsed.tid, Some(7));
    check_read_back(c, parsed)
}

/// The dotted name column (no root namespace here): the target with every
/// `::` as `.`, the rest of the line as the plain RADICAL line reads back.
fn check_radical_dotted(c: &Case, r: &Record<'_>) -> Result<(), TestCaseError> {
    let mut line = String::new();
    Format::RadicalDotted.write(r, &mut line);
    let l = one_line(&line)?;
    let mut parsed = parse_radical(l, c.fields.len()).map_err(TestCaseError::fail)?;
    prop_assert_eq!(&parsed.target, &c.target.replace("::", "."));
    parsed.target.clone_from(&c.target);
    check_read_back(c, parsed)
}

fn check_compact(c: &Case, r: &Record<'_>) -> Result<(), TestCaseError> {
    let mut line = String::new();
    Format::Compact.write(r, &mut line);
    let l = one_line(&line)?;
    let parsed = parse_compact(l, c.fields.len()).map_err(TestCaseError::fail)?;
    prop_assert_eq!(parsed.level.as_str(), c.level.as_str());
    check_read_back(c, parsed)
}

fn check_json(c: &Case, r: &Record<'_>) -> Result<(), TestCaseError> {
    let mut line = String::new();
    Format::Json.write(r, &mut line);
    let l = one_line(&line)?;
    let j: serde_json::Value =
        serde_json::from_str(l).map_err(|e| TestCaseError::fail(format!("{e}: {l}")))?;
    prop_assert_eq!(j["target"].as_str(), Some(c.target.as_str()));
    prop_assert_eq!(j["msg"].as_str(), Some(c.message.as_str()));
    let fields = j["fields"].as_object().expect("fields object");
    prop_assert_eq!(fields.len(), c.fields.len());
    for (k, v) in &c.fields {
        let got = &fields[k.as_str()];
        prop_assert!(v.same_json(got), "{:?}: {:?} vs {}", k, v, got);
    }
    Ok(())
}

/// One run, every layout per case (the cases are generated once): RADICAL,
/// Compact and JSON lines are checked at once; every case also goes through
/// a real `.prof` sink as a telemetry event, and afterwards the file has one
/// line per event (plus header, `sync_abs`, `END`), each of seven fields.
#[test]
fn every_layout_one_line_and_read_back() {
    let dir = elide_tests::Scratch::path("props");
    let sink = Arc::new(ProfSink::open(&dir, "props").unwrap());
    let emitted = std::cell::Cell::new(0u64);
    let mut runner = TestRunner::new(Config {
        cases: cases(),
        failure_persistence: None,
        ..Config::default()
    });
    let result = runner.run(&case(), |c| {
        with_record(&c, Kind::Log, |r| {
            check_radical(&c, r)?;
            check_radical_dotted(&c, r)?;
            check_compact(&c, r)?;
            check_json(&c, r)
        })?;
        with_record(&c, Kind::Telemetry, |r| sink.emit(r));
        emitted.set(emitted.get() + 1);
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    sink.close().unwrap();
    let text = std::fs::read_to_string(sink.path()).unwrap();
    let lines = splitlines(&text);
    assert!(emitted.get() >= u64::from(cases()));
    assert_eq!(
        lines.len() as u64,
        emitted.get() + 3,
        "header, sync_abs, events, END"
    );
    for line in lines {
        assert_eq!(line.split(',').count(), 7, "{line:?}");
    }
}
