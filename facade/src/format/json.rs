//! JSON lines: one object per record, always valid JSON.

use std::fmt::Write;

use super::escape::JsonEscaped;
use super::{epoch_secs, pid};
use crate::record::Record;
use crate::value::{Field, Value};

/// A JSON string literal.
pub fn json_str(s: &str, out: &mut String) {
    out.push('"');
    let _ = JsonEscaped(out).write_str(s);
    out.push('"');
}

/// A typed JSON value: numbers and bools stay bare, non-finite floats and
/// everything else become strings, so the output is always valid JSON.
pub fn json_value(v: &Value<'_>, out: &mut String) {
    match *v {
        Value::I64(n) => {
            let _ = write!(out, "{n}");
        }
        Value::U64(n) => {
            let _ = write!(out, "{n}");
        }
        Value::I128(n) => {
            let _ = write!(out, "{n}");
        }
        Value::U128(n) => {
            let _ = write!(out, "{n}");
        }
        Value::F64(f) if f.is_finite() => {
            let _ = write!(out, "{f:?}");
        }
        Value::Bool(b) => out.push_str(if b { "true" } else { "false" }),
        ref other => {
            out.push('"');
            let _ = write!(JsonEscaped(out), "{other}");
            out.push('"');
        }
    }
}

/// Fields as one JSON object, values typed as in [`json_value`].
pub fn json_fields(fields: &[Field<'_>], out: &mut String) {
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

pub(super) fn write(record: &Record<'_>, out: &mut String) {
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
        pid(),
        record.thread_id()
    );
    let _ = JsonEscaped(out).write_fmt(*record.args());
    out.push_str("\",\"fields\":");
    json_fields(record.fields(), out);
    out.push_str(",\"file\":");
    json_str(meta.file(), out);
    let _ = write!(out, ",\"line\":{}}}", meta.line());
}
