//! JSON lines: one object per record, always valid JSON.

use std::fmt::{self, Write};
use std::time::{SystemTime, UNIX_EPOCH};

use super::escape::JsonEscaped;
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
    let _ = JsonEscaped(out).write_str(s);
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
    let meta = record.metadata();
    let _ = write!(
        out,
        "{{\"time\":{:.6},\"level\":",
        epoch_secs(record.time())
    );
    string(record.level().as_str(), out);
    out.push_str(",\"target\":");
    string(record.target(), out);
    let _ = write!(out, ",\"pid\":{},\"tid\":{}", pid(), record.thread_id());
    // The span it was emitted in, with the ids OTLP gives it.
    crate::record::trace_ids::push_json(record.scope_ids(), out);
    out.push_str(",\"msg\":\"");
    let _ = record
        .args()
        .with_args(|args| JsonEscaped(out).write_fmt(args));
    out.push_str("\",\"fields\":");
    fields_object(record.fields(), out);
    super::span_chain::write_json(record, out);
    out.push_str(",\"file\":");
    string(meta.file(), out);
    let _ = write!(out, ",\"line\":{}}}", meta.line());
}

/// Seconds since the Unix epoch, as a float (negative before 1970).
fn epoch_secs(t: SystemTime) -> f64 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_secs_f64(),
        Err(e) => -e.duration().as_secs_f64(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epoch_seconds_are_signed_seconds_since_1970() {
        use std::time::Duration;
        assert_eq!(epoch_secs(UNIX_EPOCH), 0.0);
        assert_eq!(epoch_secs(UNIX_EPOCH + Duration::from_millis(1500)), 1.5);
        assert_eq!(epoch_secs(UNIX_EPOCH - Duration::from_millis(2250)), -2.25);
        let t = UNIX_EPOCH + Duration::new(1_796_066_819, 926_123_456);
        assert_eq!(epoch_secs(t), 1_796_066_819.0 + 0.926_123_456);
    }
}
