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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::level::Level;
    use crate::record::metadata::TEST_LOG;
    use std::time::{Duration, UNIX_EPOCH};

    fn line(level: Level, since_epoch: Duration) -> String {
        let r = Record::new(&TEST_LOG, level, format_args!("m"), &[])
            .with_time(UNIX_EPOCH + since_epoch);
        let mut out = String::new();
        write(&r, &mut out);
        out
    }

    /// The UTC time of day to the millisecond (cut, not rounded), then the
    /// level padded to five: every column at both ends of its range.
    #[test]
    fn time_of_day_and_level_columns() {
        let day = 86_400;
        assert_eq!(line(Level::Info, Duration::ZERO), "00:00:00.000 INFO  t: m");
        assert_eq!(
            line(
                Level::Error,
                Duration::new(day * 20_000 + 23 * 3600 + 59 * 60 + 59, 999_999_999)
            ),
            "23:59:59.999 ERROR t: m"
        );
        assert_eq!(
            line(Level::Warn, Duration::new(1_796_066_819, 926_123_456)),
            "19:26:59.926 WARN  t: m"
        );
        assert_eq!(
            line(
                Level::Trace,
                Duration::new(3600 * 10 + 60 * 7 + 5, 40_000_000)
            ),
            "10:07:05.040 TRACE t: m"
        );
        assert_eq!(
            line(Level::Debug, Duration::from_millis(5)),
            "00:00:00.005 DEBUG t: m"
        );
    }
}
