//! Line formats: the RADICAL layout, JSON lines and a compact human format.
//!
//! Every format writes exactly one line per record, by Python's
//! `str.splitlines()` rules: newlines, every other control character and
//! U+2028 / U+2029 are escaped in messages, targets, keys and values. In the
//! RADICAL and Compact layouts a target is one space-free token and a key or
//! value that is empty or holds a space, `=`, `"`, `\` or a line break is
//! quoted, so no text can be read back as another column or another
//! `key=value` pair.
//!
//! Statics owned here: each thread's reusable `LINE` buffer. A layout's
//! options are part of its value ([`Format::RadicalDotted`]), never a global.

use std::fmt::{self, Write};

use crate::os::process::pid;
use crate::record::value::{Value, Visit};
use crate::record::Record;

mod compact;
mod debug_text;
mod digits;
mod escape;
#[cfg(feature = "json")]
mod json;
mod radical;
pub(crate) mod span_chain;

#[cfg(feature = "otlp")]
pub(crate) use debug_text::otlp_string;
#[cfg(any(feature = "json", feature = "prof"))]
pub(crate) use digits::push_epoch_7;
#[cfg(feature = "prof")]
pub(crate) use escape::prof_text;
pub use escape::Escaped;
#[cfg(feature = "json")]
pub(crate) use escape::JsonEscaped;
#[cfg(feature = "json")]
#[allow(deprecated)]
pub use json::{json_fields, json_str, json_value};

/// A line layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Format {
    /// The layout of radical.utils' logger, column for column
    /// (`%(created).3f : %(name)-20s : %(process)-5d : %(thread)-5d :
    /// %(levelname)-8s : %(message)s`), then the fields as ` key=value`:
    ///
    /// ```text
    /// 1796066819.926 : radical.asyncflow    : 3556  : 1     : WARNING  : a warning uid=7
    /// ```
    ///
    /// - time: epoch seconds, rounded to milliseconds as Python's `%.3f`
    ///   rounds `time.time()`;
    /// - name: the site's target, left-aligned in 20 columns (longer names
    ///   are not cut; [`RadicalDotted`](Format::RadicalDotted) spells it
    ///   with dots);
    /// - process id, left-aligned in 5;
    /// - thread: elide's thread number ([`thread_number`](crate::thread_number):
    ///   1 for the first thread that logs, then 2, 3, ...), left-aligned in 5.
    ///   It is stable for the thread's life and the same on every path
    ///   (an async writer prints the caller's); Python prints its thread
    ///   ident instead, which has no Rust equivalent;
    /// - level: Python's names `ERROR`, `WARNING`, `INFO`, `DEBUG`, and
    ///   `TRACE` for trace records (Python has none), left-aligned in 8.
    #[default]
    Radical,
    /// The [`Radical`](Format::Radical) layout with the name column in the
    /// dotted spelling of radical.utils' logger names: `::` written as `.`,
    /// and a target under the root namespace of [`init_ns`](crate::init_ns)
    /// spelled from the root (`init_ns("radical.asyncflow")`:
    /// `radical_asyncflow::engine` -> `radical.asyncflow.engine`), so mixed
    /// Rust and Python logs sort and grep alike. `LOG_FMT=radical-dotted`.
    ///
    /// ```text
    /// 1796066819.926 : radical.asyncflow.engine : 3556  : 1     : INFO     : started
    /// ```
    RadicalDotted,
    /// One JSON object per line: `time`, `level`, `target`, `pid`, `tid`,
    /// `msg`, `fields` (typed), `file`, `line`. Needs the cargo feature
    /// `json` (on by default); without it lines are written in the
    /// [`Radical`](Format::Radical) layout (see
    /// [`is_available`](Format::is_available)).
    Json,
    /// `HH:MM:SS.mmm LEVEL target: message key=value` (UTC).
    Compact,
}

impl Format {
    /// The format's name as written in configuration (`LOG_FMT`):
    /// `radical`, `radical-dotted`, `json`, `compact`.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Radical => "radical",
            Format::RadicalDotted => "radical-dotted",
            Format::Json => "json",
            Format::Compact => "compact",
        }
    }

    /// Parses a configuration value (case-insensitive, surrounding spaces
    /// ignored: `" JSON "` is `Json`); `None` for anything else.
    pub fn parse(s: &str) -> Option<Format> {
        match s.trim().to_ascii_lowercase().as_str() {
            "radical" => Some(Format::Radical),
            "radical-dotted" => Some(Format::RadicalDotted),
            "json" => Some(Format::Json),
            "compact" => Some(Format::Compact),
            _ => None,
        }
    }

    /// Whether this build of elide writes the format: [`Json`](Format::Json)
    /// needs the cargo feature `json`; a format this build lacks is written
    /// in the [`Radical`](Format::Radical) layout.
    ///
    /// ```
    /// use elide::format::Format;
    /// assert!(Format::Compact.is_available());
    /// assert_eq!(Format::Json.is_available(), cfg!(feature = "json"));
    /// ```
    pub fn is_available(self) -> bool {
        cfg!(feature = "json") || self != Format::Json
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
        // The values' `Debug`/`Display` run in here: a panic is theirs.
        crate::contain::formatting_values(|| match self {
            // One call for both spellings, so the line's writer stays
            // inlined here.
            Format::Radical | Format::RadicalDotted => {
                radical::write(record, self == Format::RadicalDotted, out)
            }
            #[cfg(feature = "json")]
            Format::Json => json::write(record, out),
            // Documented on the variant: the RADICAL layout instead.
            #[cfg(not(feature = "json"))]
            Format::Json => radical::write(record, false, out),
            Format::Compact => compact::write(record, out),
        });
        out.push('\n');
    }

    /// Where the level name sits in a line this format wrote (without its
    /// padding), for a console that colours it; `None` for JSON. The
    /// columns before it cannot hold the separators (names are escaped), so
    /// a target that contains a level name is never coloured by mistake.
    pub(crate) fn level_span(self, line: &str) -> Option<std::ops::Range<usize>> {
        let start = match self {
            // time : name : pid : tid : LEVEL
            Format::Radical | Format::RadicalDotted => line.match_indices(" : ").nth(3)?.0 + 3,
            // HH:MM:SS.mmm LEVEL
            Format::Compact => line.find(' ')? + 1,
            #[cfg(feature = "json")]
            Format::Json => return None,
            // Without `json`, a JSON layout writes the RADICAL line.
            #[cfg(not(feature = "json"))]
            Format::Json => return Format::Radical.level_span(line),
        };
        let len = line[start..].find(' ')?;
        Some(start..start + len)
    }
}

fn write_message(record: &Record<'_>, out: &mut String) {
    // A data format: literal pieces and integers straight into the line,
    // without the `fmt` machinery; the text is what `format_args!` makes.
    record.args().write_to(out, escape::escape_text, false)
}

fn write_fields(record: &Record<'_>, out: &mut String) {
    for (k, v) in record.fields() {
        out.push(' ');
        write_plain_key(k, out);
        out.push('=');
        write_plain_value(v, out);
    }
}

/// A `key=value` key: quoted and escaped like a string value when needed.
pub(crate) fn write_plain_key(k: &str, out: &mut String) {
    escape::quoted_str(k, out);
}

/// A `key=value` value: numbers and bools bare; every other kind (strings,
/// chars, `%x`, `?x`) quoted and escaped when it is empty or holds a space,
/// `=`, `"`, `\` or a line break (see [`escape::Quoted`]).
pub(crate) fn write_plain_value(v: &Value<'_>, out: &mut String) {
    v.visit(&mut Plain(out));
}

/// The `key=value` writer of [`write_plain_value`].
struct Plain<'a>(&'a mut String);

impl Visit for Plain<'_> {
    fn i64(&mut self, v: i64) {
        digits::push_i64(v, self.0);
    }
    fn u64(&mut self, v: u64) {
        digits::push_u64(v, self.0);
    }
    fn i128(&mut self, v: i128) {
        let _ = write!(self.0, "{v}");
    }
    fn u128(&mut self, v: u128) {
        let _ = write!(self.0, "{v}");
    }
    fn f64(&mut self, v: f64) {
        let _ = write!(self.0, "{v}");
    }
    fn bool(&mut self, v: bool) {
        self.0.push_str(if v { "true" } else { "false" });
    }
    fn str(&mut self, v: &str) {
        escape::quoted_str(v, self.0);
    }
    fn display(&mut self, v: &dyn fmt::Display) {
        let mut q = escape::Quoted::begin(self.0);
        let _ = write!(q, "{v}");
        q.end();
    }
    fn debug(&mut self, v: &dyn fmt::Debug) {
        let start = self.0.len();
        let _ = write!(self.0, "{v:?}");
        debug_text::settle_plain(self.0, start);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each kind of value as a `key=value` value and as a JSON value:
    /// numbers and bools bare, text quoted and escaped (in `key=value` only
    /// when it needs it).
    #[test]
    fn values_of_every_kind_in_key_value_and_json() {
        let (min, max) = (i128::MIN.to_string(), u128::MAX.to_string());
        let cases: [(Value<'_>, &str, &str); 20] = [
            (Value::I64(-3), "-3", "-3"),
            (Value::U64(42), "42", "42"),
            (Value::I128(i128::MIN), &min, &min),
            (Value::U128(u128::MAX), &max, &max),
            (Value::F64(-0.25), "-0.25", "-0.25"),
            (Value::F64(1e21), "1000000000000000000000", "1e21"),
            (Value::F64(f64::NAN), "NaN", r#""NaN""#),
            (Value::Bool(false), "false", "false"),
            (Value::Char('x'), "x", r#""x""#),
            (Value::Char('='), r#""=""#, r#""=""#),
            (Value::Char('"'), r#""\"""#, r#""\"""#),
            (Value::Str("ok"), "ok", r#""ok""#),
            (Value::Str("a b"), r#""a b""#, r#""a b""#),
            (Value::Str(""), r#""""#, r#""""#),
            (Value::Str("a\nb"), r#""a\nb""#, r#""a\nb""#),
            (Value::Display(&"x=1"), r#""x=1""#, r#""x=1""#),
            // A Debug string is quoted once, as where it came from.
            (Value::Debug(&"q"), r#""q""#, r#""q""#),
            (Value::Debug(&"a \"b\""), r#""a \"b\"""#, r#""a \"b\"""#),
            (Value::Debug(&Some(1)), "Some(1)", r#""Some(1)""#),
            (
                Value::Debug(&Some("q")),
                r#""Some(\"q\")""#,
                r#""Some(\"q\")""#,
            ),
        ];
        for (v, plain, _json) in &cases {
            let mut out = String::new();
            write_plain_value(v, &mut out);
            assert_eq!(out, *plain, "{v:?}");
            #[cfg(feature = "json")]
            {
                let mut out = String::new();
                json::value(v, &mut out);
                assert_eq!(out, *_json, "{v:?}");
            }
        }
    }

    #[test]
    fn every_layout_parses_from_its_name_in_any_case_and_spacing() {
        for f in [Format::Radical, Format::Json, Format::Compact] {
            assert_eq!(Format::parse(f.as_str()), Some(f));
            let loud = format!("  {} ", f.as_str().to_ascii_uppercase());
            assert_eq!(Format::parse(&loud), Some(f), "{loud:?}");
        }
        for bad in ["", "text", "radical2", "js on"] {
            assert_eq!(Format::parse(bad), None, "{bad:?}");
        }
    }

    /// Run with and without the `json` feature (CI runs the unit tests
    /// both ways).
    #[test]
    fn a_layout_is_available_unless_its_feature_is_off() {
        assert!(Format::Radical.is_available());
        assert!(Format::Compact.is_available());
        assert_eq!(Format::Json.is_available(), cfg!(feature = "json"));
    }

    /// Without `json`, a `Json` layout writes the RADICAL line, and the
    /// console colours its level where the RADICAL layout would.
    #[cfg(not(feature = "json"))]
    #[test]
    fn without_json_the_json_layout_colours_the_radical_level() {
        let line = "1700000000.123 : app : 11 : 22 : INFO     : started\n";
        let span = Format::Radical.level_span(line).unwrap();
        assert_eq!(&line[span.clone()], "INFO");
        assert_eq!(Format::Json.level_span(line), Some(span));
    }
}
