//! The RADICAL line, column for column as radical.utils' logger writes it:
//! `%(created).3f : %(name)-20s : %(process)-5d : %(thread)-5d :
//! %(levelname)-8s : %(message)s`, then the fields.

use super::digits::{pad, push_epoch, push_u64_left};
use super::escape::escape_name;
use super::{pid, write_fields, write_message};
use crate::record::level::Level;
use crate::record::Record;

/// The name column's width (`%-20s`); longer names are not cut.
const NAME_WIDTH: usize = 20;

/// Python's level names, padded to 8 (`%-8s`). Python has no trace level:
/// elide writes `TRACE`, so trace lines stay apart from debug lines.
fn level_column(level: Level) -> &'static str {
    match level {
        Level::Error => "ERROR   ",
        Level::Warn => "WARNING ",
        Level::Info => "INFO    ",
        Level::Debug => "DEBUG   ",
        Level::Trace => "TRACE   ",
    }
}

/// Writes the line; `dotted` spells the name column as
/// [`Format::RadicalDotted`](super::Format::RadicalDotted) does.
pub(super) fn write(record: &Record<'_>, dotted: bool, out: &mut String) {
    out.reserve(96);
    push_epoch::<3>(record.since_epoch(), out);
    out.push_str(" : ");
    let width = if dotted {
        write_dotted(record.target(), out)
    } else {
        escape_name(record.target(), out)
    };
    pad(width, NAME_WIDTH, out);
    out.push_str(" : ");
    push_u64_left(u64::from(pid()), 5, out);
    out.push_str(" : ");
    push_u64_left(record.thread_id(), 5, out);
    out.push_str(" : ");
    out.push_str(level_column(record.level()));
    out.push_str(" : ");
    let in_span = super::span_chain::begin_message(record, out);
    let at = out.len();
    write_message(record, out);
    super::span_chain::end_message(in_span, at, out);
    write_fields(record, out);
}

/// Writes the dotted spelling of `target`; returns its width. Out of
/// line, so the default spelling's path keeps its registers.
#[inline(never)]
fn write_dotted(target: &str, out: &mut String) -> usize {
    crate::site::namespace::with_root(|root| {
        let (mut width, rest) = match root.and_then(|(name, prefix)| {
            crate::site::namespace::strip_prefix(target, prefix).map(|rest| (name, rest))
        }) {
            Some((name, rest)) => (write_dotted_parts(name, out), rest),
            None => (0, target),
        };
        width += write_dotted_parts(rest, out);
        width
    })
}

/// Writes `s` with every `::` as `.`; returns the width.
fn write_dotted_parts(s: &str, out: &mut String) -> usize {
    let mut width = 0;
    for (i, part) in s.split("::").enumerate() {
        if i > 0 {
            out.push('.');
            width += 1;
        }
        width += escape_name(part, out);
    }
    width
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::metadata::{Kind, Metadata};
    use crate::record::value::Value;
    use std::time::{Duration, UNIX_EPOCH};

    static META: Metadata = Metadata::new(
        Kind::Log,
        Level::Info,
        "radical.asyncflow",
        "m",
        "f.rs",
        1,
        "",
    );

    fn line(level: Level) -> String {
        let fields = [("uid", Value::U64(7))];
        let r = Record::new(&META, level, format_args!("a message"), &fields)
            .with_time(UNIX_EPOCH + Duration::from_millis(1_796_066_819_926))
            .with_thread(3);
        let mut out = String::new();
        crate::format::Format::Radical.write(&r, &mut out);
        out
    }

    #[test]
    fn columns_and_widths() {
        let pid = format!("{:<5}", std::process::id());
        for (level, name) in [
            (Level::Error, "ERROR   "),
            (Level::Warn, "WARNING "),
            (Level::Info, "INFO    "),
            (Level::Debug, "DEBUG   "),
            (Level::Trace, "TRACE   "),
        ] {
            assert_eq!(
                line(level),
                format!(
                    "1796066819.926 : radical.asyncflow    : {pid} : 3     : {name} : a message uid=7\n"
                )
            );
        }
    }

    #[test]
    fn level_span_finds_the_level_column_not_the_target() {
        static TRICKY: Metadata =
            Metadata::new(Kind::Log, Level::Info, "INFO WARNING", "m", "f.rs", 1, "");
        let r = Record::new(&TRICKY, Level::Warn, format_args!("INFO"), &[]);
        for format in [
            crate::format::Format::Radical,
            crate::format::Format::Compact,
        ] {
            let mut out = String::new();
            format.write(&r, &mut out);
            let span = format.level_span(&out).unwrap();
            let want = if format == crate::format::Format::Radical {
                "WARNING"
            } else {
                "WARN"
            };
            assert_eq!(&out[span.clone()], want, "{out:?}");
            // A plain `find` would have picked an "INFO" elsewhere.
            assert!(
                out.find("INFO").is_some_and(|at| !span.contains(&at)),
                "{out:?}"
            );
        }
        assert_eq!(crate::format::Format::Json.level_span("{}"), None);
    }
}
