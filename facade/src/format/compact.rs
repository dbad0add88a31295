//! The compact human layout: `HH:MM:SS.mmm LEVEL target: message k=v` (UTC).

use std::fmt::Write;

use super::escape::escape_name;
use super::{write_fields, write_message};
use crate::record::Record;

pub(super) fn write(record: &Record<'_>, out: &mut String) {
    let ms = record.since_epoch().map_or(0, |d| d.as_millis());
    let day_ms = ms % 86_400_000;
    let _ = write!(
        out,
        "{:02}:{:02}:{:02}.{:03} {:<5} ",
        day_ms / 3_600_000,
        day_ms / 60_000 % 60,
        day_ms / 1000 % 60,
        day_ms % 1000,
        record.level(),
    );
    escape_name(record.target(), out);
    out.push_str(": ");
    let in_span = super::span_chain::begin_message(record, out);
    let at = out.len();
    write_message(record, out);
    super::span_chain::end_message(in_span, at, out);
    write_fields(record, out);
}
