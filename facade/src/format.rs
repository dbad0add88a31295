//! Line formats: the RADICAL layout, JSON lines and a compact human format.
//!
//! Every format writes exactly one line per record: newlines and other
//! control characters inside messages and values are escaped, so a value
//! cannot forge a second log line.
//!
//! Statics owned here: each thread's reusable `LINE` buffer.

use std::fmt::{self, Write};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::record::Record;
use crate::value::{Value, Visit};

/// A line layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Format {
    /// `<epoch secs .3f> : <target> : <pid> : <tid> : <LEVEL> : <message> key=value ...`,
    /// the layout of RADICAL-Cybertools logs.
    #[default]
    Radical,
    /// One JSON object per line: `time`, `level`, `target`, `pid`, `tid`,
    /// `msg`, `fields` (typed), `file`, `line`.
    Json,
    /// `HH:MM:SS.mmm LEVEL target: message key=value` (UTC).
    Compact,
}

impl Format {
    /// The format's name as written in configuration (`LOG_FMT`):
    /// `radical`, `json`, `compact`.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Radical => "radical",
            Format::Json => "json",
            Format::Compact => "compact",
        }
    }

    /// Parses a configuration value (case-insensitive, surrounding spaces
    /// ignored: `" JSON "` is `Json`); `None` for anything else.
    pub fn parse(s: &str) -> Option<Format> {
        match s.trim().to_ascii_lowercase().as_str() {
            "radical" => Some(Format::Radical),
            "json" => Some(Format::Json),
            "compact" => Some(Format::Compact),
            _ => None,
        }
    }
}

thread_local! {
    static LINE: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// Runs `f` with this thread's reusable, empty line buffer, so sinks render
/// without allocating per record in steady state. A nested call on the same
/// thread (only possible from inside `f`) gets a fresh buffer instead.
pub(crate) fn with_line_buffer(f: impl FnOnce(&mut String)) {
    let mut f = Some(f);
    let _ = LINE.try_with(|buf| {
        if let Ok(mut line) = buf.try_borrow_mut() {
            line.clear();
            (f.take().expect("called once"))(&mut line);
        }
    });
    if let Some(f) = f {
        f(&mut String::new());
    }
}

/// Escapes control characters (and nothing else) while writing to a `String`.
#[derive(Debug)]
pub struct Escaped<'a>(pub &'a mut String);

impl Write for Escaped<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for c in s.chars() {
            match c {
                '\n' => self.0.push_str("\\n"),
                '\r' => self.0.push_str("\\r"),
                '\t' => self.0.push_str("\\t"),
                c if c.is_control() => {
                    let _ = write!(self.0, "\\u{{{:x}}}", c as u32);
                }
                c => self.0.push(c),
            }
        }
        Ok(())
    }
}

/// Escapes for the inside of a JSON string.
struct JsonEscaped<'a>(&'a mut String);

impl Write for JsonEscaped<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for c in s.chars() {
            match c {
                '"' => self.0.push_str("\\\""),
                '\\' => self.0.push_str("\\\\"),
                '\n' => self.0.push_str("\\n"),
                '\r' => self.0.push_str("\\r"),
                '\t' => self.0.push_str("\\t"),
                c if (c as u32) < 0x20 || c == '\u{7f}' || c.is_control() => {
                    let _ = write!(self.0, "\\u{:04x}", c as u32);
                }
                c => self.0.push(c),
            }
        }
        Ok(())
    }
}

/// Seconds since the Unix epoch, as a float.
pub fn epoch_secs(t: SystemTime) -> f64 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_secs_f64(),
        Err(e) => -e.duration().as_secs_f64(),
    }
}

impl Format {
    /// Appends one formatted line (with its `\n`) for `record` to `out`.
    ///
    /// ```
    /// use std::sync::{Arc, Mutex};
    /// use elide::{format::Format, Record, Sink};
    ///
    /// struct Lines(Mutex<String>);
    /// impl Sink for Lines {
    ///     fn emit(&self, r: &Record<'_>) { Format::Json.write(r, &mut self.0.lock().unwrap()) }
    /// }
    /// let lines = Arc::new(Lines(Mutex::new(String::new())));
    /// elide::set_sinks([lines.clone() as Arc<dyn Sink>]);
    /// elide::error!(uid = 3, "line one\nline two");
    /// let out = lines.0.lock().unwrap();
    /// assert_eq!(out.lines().count(), 1);
    /// assert!(out.contains(r#""msg":"line one\nline two","fields":{"uid":3}"#));
    /// ```
    pub fn write(self, record: &Record<'_>, out: &mut String) {
        match self {
            Format::Radical => write_radical(record, out),
            Format::Json => write_json(record, out),
            Format::Compact => write_compact(record, out),
        }
        out.push('\n');
    }
}

fn write_message(record: &Record<'_>, out: &mut String) {
    let _ = Escaped(out).write_fmt(*record.args());
}

fn write_fields(record: &Record<'_>, out: &mut String) {
    for (k, v) in record.fields() {
        out.push(' ');
        let _ = Escaped(out).write_str(k);
        out.push('=');
        write_plain_value(v, out);
    }
}

/// `key=value` value: strings that would be ambiguous are quoted.
pub(crate) fn write_plain_value(v: &Value<'_>, out: &mut String) {
    v.visit(&mut Plain(out));
}

/// The `key=value` writer of [`write_plain_value`].
struct Plain<'a>(&'a mut String);

impl Visit for Plain<'_> {
    fn str(&mut self, s: &str) {
        if !(s.is_empty() || s.contains([' ', '"', '='])) {
            return self.display(&s);
        }
        self.0.push('"');
        for c in s.chars() {
            if c == '"' || c == '\\' {
                self.0.push('\\');
            }
            let _ = Escaped(self.0).write_char(c);
        }
        self.0.push('"');
    }
    fn display(&mut self, v: &dyn fmt::Display) {
        let _ = write!(Escaped(self.0), "{v}");
    }
    fn debug(&mut self, v: &dyn fmt::Debug) {
        let _ = write!(Escaped(self.0), "{v:?}");
    }
}

fn write_radical(record: &Record<'_>, out: &mut String) {
    let _ = write!(
        out,
        "{:.3} : {} : {} : {} : {:<5} : ",
        epoch_secs(record.time()),
        record.target(),
        crate::process::pid(),
        record.thread_id(),
        record.level(),
    );
    write_message(record, out);
    write_fields(record, out);
}

fn write_compact(record: &Record<'_>, out: &mut String) {
    let ms = record
        .time()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0);
    let day_ms = ms % 86_400_000;
    let _ = write!(
        out,
        "{:02}:{:02}:{:02}.{:03} {:<5} {}: ",
        day_ms / 3_600_000,
        day_ms / 60_000 % 60,
        day_ms / 1000 % 60,
        day_ms % 1000,
        record.level(),
        record.target(),
    );
    write_message(record, out);
    write_fields(record, out);
}

/// A JSON string literal.
pub fn json_str(s: &str, out: &mut String) {
    out.push('"');
    let _ = JsonEscaped(out).write_str(s);
    out.push('"');
}

/// A typed JSON value: numbers and bools stay bare, non-finite floats and
/// everything else become strings, so the output is always valid JSON.
pub fn json_value(v: &Value<'_>, out: &mut String) {
    v.visit(&mut Json(out));
}

/// The JSON writer of [`json_value`].
struct Json<'a>(&'a mut String);

impl Json<'_> {
    fn bare(&mut self, v: &dyn fmt::Display) {
        let _ = write!(self.0, "{v}");
    }
}

impl Visit for Json<'_> {
    fn i64(&mut self, v: i64) {
        self.bare(&v)
    }
    fn u64(&mut self, v: u64) {
        self.bare(&v)
    }
    fn i128(&mut self, v: i128) {
        self.bare(&v)
    }
    fn u128(&mut self, v: u128) {
        self.bare(&v)
    }
    fn f64(&mut self, v: f64) {
        if v.is_finite() {
            let _ = write!(self.0, "{v:?}");
        } else {
            self.display(&v)
        }
    }
    fn bool(&mut self, v: bool) {
        self.bare(&v)
    }
    fn display(&mut self, v: &dyn fmt::Display) {
        self.0.push('"');
        let _ = write!(JsonEscaped(self.0), "{v}");
        self.0.push('"');
    }
    fn debug(&mut self, v: &dyn fmt::Debug) {
        self.0.push('"');
        let _ = write!(JsonEscaped(self.0), "{v:?}");
        self.0.push('"');
    }
}

/// Fields as one JSON object, values typed as in [`json_value`].
pub fn json_fields(fields: &[crate::value::Field<'_>], out: &mut String) {
    out.push('{');
    for (i, (k, v)) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        json_str(k, out);
        out.push(':');
        json_value(v, out);
    }
    out.push('}');
}

fn write_json(record: &Record<'_>, out: &mut String) {
    let meta = record.metadata();
    let _ = write!(
        out,
        "{{\"time\":{:.6},\"level\":",
        epoch_secs(record.time())
    );
    json_str(record.level().as_str(), out);
    out.push_str(",\"target\":");
    json_str(record.target(), out);
    let _ = write!(
        out,
        ",\"pid\":{},\"tid\":{},\"msg\":\"",
        crate::process::pid(),
        record.thread_id()
    );
    let _ = JsonEscaped(out).write_fmt(*record.args());
    out.push_str("\",\"fields\":");
    json_fields(record.fields(), out);
    out.push_str(",\"file\":");
    json_str(meta.file(), out);
    let _ = write!(out, ",\"line\":{}}}", meta.line());
}
