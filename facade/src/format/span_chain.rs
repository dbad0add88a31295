//! The span chain of a record, as the layouts write it: outermost first,
//! each span's own fields with it, so a key repeated in two spans (or in
//! a span and the event) stays apart.
//!
//! - RADICAL and compact, before the message:
//!   `outer{a=1}:inner{b=2}: message b=3` (`tracing`'s fmt spelling);
//! - JSON: `"spans":[{"name":"outer","fields":{"a":1}},{"name":"inner","fields":{"b":2}}]`
//!   after `"fields"`, present only when the record is in a span.

use std::fmt;

use super::escape::escape_name;
use super::{write_plain_key, write_plain_value};
use crate::record::span_data::SpanData;
use crate::record::Record;

impl fmt::Debug for SpanData {
    /// The chain as the compact layout writes it: `outer{a=1}:inner`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut text = String::new();
        write_plain(self, &mut text);
        f.write_str(&text)
    }
}

/// `outer{a=1}:inner` for the chain ending at `innermost`.
pub(crate) fn write_plain(innermost: &SpanData, out: &mut String) {
    for (i, span) in innermost.chain().into_iter().enumerate() {
        if i > 0 {
            out.push(':');
        }
        escape_name(span.name(), out);
        if span.fields().is_empty() {
            continue;
        }
        out.push('{');
        for (j, (k, v)) in span.fields().iter().enumerate() {
            if j > 0 {
                out.push(' ');
            }
            write_plain_key(k, out);
            out.push('=');
            write_plain_value(&v.as_value(), out);
        }
        out.push('}');
    }
}

/// Before the message: the chain and `": "` if the record is in a span.
/// Returns whether it wrote them; then the layout calls [`end_message`]
/// after the message. (Two calls around the layout's own message writer,
/// so that stays inlined in the layout: a record in no span costs the
/// check and nothing else.)
#[inline(always)]
pub(super) fn begin_message(record: &Record<'_>, out: &mut String) -> bool {
    let Some(span) = record.span() else {
        return false;
    };
    write_plain(span, out);
    out.push_str(": ");
    true
}

/// After the message begun by [`begin_message`] at `at` (the length
/// before the message): `":"` alone before an empty message, as the
/// fields bring their own space.
#[inline(always)]
pub(super) fn end_message(in_span: bool, at: usize, out: &mut String) {
    if in_span && out.len() == at {
        out.pop();
    }
}

/// `,"spans":[..]` for a JSON object, if the record is in a span.
#[cfg(feature = "json")]
pub(crate) fn write_json(record: &Record<'_>, out: &mut String) {
    let Some(span) = record.span() else { return };
    out.push_str(",\"spans\":[");
    for (i, span) in span.chain().into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str("{\"name\":");
        super::json::string(span.name(), out);
        out.push_str(",\"fields\":");
        let fields = span.fields().iter().map(|(k, v)| (*k, v.as_value()));
        super::json::object(fields, out);
        out.push('}');
    }
    out.push(']');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::Format;
    use crate::record::level::Level;
    use crate::record::metadata::{Kind, Metadata};
    use crate::record::value::Value;

    static META: Metadata = Metadata::new(Kind::Log, Level::Info, "app", "m", "f.rs", 1, "");

    /// The same key in two spans and the event stays three keys, each
    /// with its owner, in every layout.
    #[test]
    fn every_layout_writes_the_chain_outermost_first() {
        let (_, inner) =
            crate::record::span_data::test_chain(&[("b", Value::U64(2)), ("s", Value::Str("x y"))]);
        let fields = [("b", Value::U64(3))];
        let line = |format: Format| {
            let r = Record::new(&META, Level::Info, format_args!("msg"), &fields)
                .with_span(Some(inner.clone()));
            let mut out = String::new();
            format.write(&r, &mut out);
            out
        };
        for format in [Format::Radical, Format::Compact] {
            let out = line(format);
            assert!(
                out.ends_with(" : outer{b=1}:inner{b=2 s=\"x y\"}: msg b=3\n")
                    || out.ends_with(" app: outer{b=1}:inner{b=2 s=\"x y\"}: msg b=3\n"),
                "{out}"
            );
        }
        #[cfg(feature = "json")]
        assert!(line(Format::Json).contains(
            r#""fields":{"b":3},"spans":[{"name":"outer","fields":{"b":1}},{"name":"inner","fields":{"b":2,"s":"x y"}}]"#
        ));
        // Out of any span: no prefix, no key.
        let r = Record::new(&META, Level::Info, format_args!("msg"), &[]).with_span(None);
        let mut out = String::new();
        Format::Json.write(&r, &mut out);
        assert!(!out.contains("spans"), "{out}");
    }
}
