//! The compact human layout: `HH:MM:SS.mmm LEVEL target: message k=v` (UTC).

use super::escape::escape_name;
use super::{write_fields, write_message};
use crate::record::decimal::{push_ascii, PAIRS};
use crate::record::Record;

pub(super) fn write(record: &Record<'_>, out: &mut String) {
    let ms = record.since_epoch().map_or(0, |d| d.as_millis());
    let day_ms = (ms % 86_400_000) as u32;
    // `HH:MM:SS.mmm LEVEL ` by hand, the level padded to 5.
    let mut head = [b' '; 20];
    for (at, n) in [
        (0, day_ms / 3_600_000),
        (3, day_ms / 60_000 % 60),
        (6, day_ms / 1000 % 60),
    ] {
        head[at] = PAIRS[n as usize * 2];
        head[at + 1] = PAIRS[n as usize * 2 + 1];
        head[at + 2] = if at < 6 { b':' } else { b'.' };
    }
    let milli = day_ms % 1000;
    head[9] = b'0' + (milli / 100) as u8;
    head[10] = PAIRS[(milli % 100) as usize * 2];
    head[11] = PAIRS[(milli % 100) as usize * 2 + 1];
    let level = record.level().as_str().as_bytes();
    head[13..13 + level.len()].copy_from_slice(level);
    push_ascii::<20, 20>(&head, 0, 19, out);
    escape_name(record.target(), out);
    out.push_str(": ");
    let in_span = super::span_chain::begin_message(record, out);
    let at = out.len();
    write_message(record, out);
    super::span_chain::end_message(in_span, at, out);
    write_fields(record, out);
}
