//! JSON lines: one object per record, always valid JSON.

use std::fmt::{self, Write};

use super::digits::{push_epoch, push_i64, push_u64};
use super::escape::{json_text, JsonEscaped};
use super::pid;
use crate::record::value::{Field, Value, Visit};
use crate::record::Record;

impl super::Format {
    /// Appends `s` as a JSON string literal, escaped as
    /// [`Format::Json`](super::Format::Json) escapes it (cargo feature
    /// `json`). For sinks that write their own JSON.
    ///
    /// ```
    /// use elide::format::Format;
    /// let mut out = String::new();
    /// Format::json_str("a\"b\n", &mut out);
    /// assert_eq!(out, r#""a\"b\n""#);
    /// ```
    #[cfg_attr(docsrs, doc(cfg(feature = "json")))]
    pub fn json_str(s: &str, out: &mut String) {
        string(s, out)
    }

    /// Appends a typed JSON value: numbers and bools stay bare, non-finite
    /// floats and everything else become strings, so the output is always
    /// valid JSON (cargo feature `json`).
    #[cfg_attr(docsrs, doc(cfg(feature = "json")))]
    pub fn json_value(v: &Value<'_>, out: &mut String) {
        value(v, out)
    }

    /// Appends fields as one JSON object, values typed as in
    /// [`json_value`](super::Format::json_value) (cargo feature `json`).
    ///
    /// ```
    /// use elide::{format::Format, Value};
    /// let mut out = String::new();
    /// Format::json_fields(&[("n", Value::U64(3)), ("s", Value::Str("x"))], &mut out);
    /// assert_eq!(out, r#"{"n":3,"s":"x"}"#);
    /// ```
    #[cfg_attr(docsrs, doc(cfg(feature = "json")))]
    pub fn json_fields(fields: &[Field<'_>], out: &mut String) {
        fields_object(fields, out)
    }
}

/// Former name of [`Format::json_str`](super::Format::json_str).
#[doc(hidden)]
#[deprecated(note = "use `Format::json_str`")]
pub fn json_str(s: &str, out: &mut String) {
    string(s, out)
}

/// Former name of [`Format::json_value`](super::Format::json_value).
#[doc(hidden)]
#[deprecated(note = "use `Format::json_value`")]
pub fn json_value(v: &Value<'_>, out: &mut String) {
    value(v, out)
}

/// Former name of [`Format::json_fields`](super::Format::json_fields).
#[doc(hidden)]
#[deprecated(note = "use `Format::json_fields`")]
pub fn json_fields(fields: &[Field<'_>], out: &mut String) {
    fields_object(fields, out)
}

/// A JSON string literal.
pub(crate) fn string(s: &str, out: &mut String) {
    out.push('"');
    json_text(s, out);
    out.push('"');
}

/// A typed JSON value: numbers and bools stay bare, non-finite floats and
/// everything else become strings, so the output is always valid JSON.
pub(crate) fn value(v: &Value<'_>, out: &mut String) {
    v.visit(&mut Json(out));
}

/// The JSON writer of [`value`].
struct Json<'a>(&'a mut String);

impl Json<'_> {
    fn bare(&mut self, v: &dyn fmt::Display) {
        let _ = write!(self.0, "{v}");
    }
}

impl Visit for Json<'_> {
    fn i64(&mut self, v: i64) {
        push_i64(v, self.0)
    }
    fn u64(&mut self, v: u64) {
        push_u64(v, self.0);
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
        let start = self.0.len();
        let _ = write!(self.0, "{v:?}");
        super::debug_text::settle_json(self.0, start);
    }
}

/// Fields as one JSON object, values typed as in [`value`].
pub(crate) fn fields_object(fields: &[Field<'_>], out: &mut String) {
    object(fields.iter().map(|(k, v)| (*k, *v)), out)
}

/// `(key, value)` pairs as one JSON object, values typed as in [`value`].
pub(crate) fn object<'v>(fields: impl Iterator<Item = (&'v str, Value<'v>)>, out: &mut String) {
    out.push('{');
    for (i, (k, v)) in fields.enumerate() {
        if i > 0 {
            out.push(',');
        }
        string(k, out);
        out.push(':');
        value(&v, out);
    }
    out.push('}');
}

pub(super) fn write(record: &Record<'_>, out: &mut String) {
    // Numbers and texts straight into the line, as the RADICAL layout
    // writes them: the same text as `{:.6}`, `{}` and `format_args!`.
    let meta = record.metadata();
    out.push_str("{\"time\":");
    push_epoch::<6>(record.since_epoch(), out);
    // A level's name is letters only: nothing to escape.
    out.push_str(",\"level\":\"");
    out.push_str(record.level().as_str());
    out.push_str("\",\"target\":");
    string(record.target(), out);
    out.push_str(",\"pid\":");
    push_u64(u64::from(pid()), out);
    out.push_str(",\"tid\":");
    push_u64(record.thread_id(), out);
    // The span it was emitted in, with the ids OTLP gives it.
    crate::record::trace_ids::push_json(record.scope_ids(), out);
    out.push_str(",\"msg\":\"");
    record.args().write_to(out, json_text, false);
    out.push_str("\",\"fields\":");
    fields_object(record.fields(), out);
    super::span_chain::write_json(record, out);
    out.push_str(",\"file\":");
    string(meta.file(), out);
    out.push_str(",\"line\":");
    push_u64(u64::from(meta.line()), out);
    out.push('}');
}
