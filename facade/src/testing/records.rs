//! What a capture collected, with the assertions tests make on it.

use std::fmt;

use crate::record::level::Level;
use crate::record::metadata::Kind;
use crate::sink::OwnedRecord;

/// The records a capture collected, in the order they were logged (per
/// thread; records of threads that entered the capture interleave as they
/// happened).
///
/// Dereferences to `[OwnedRecord]`, so `len`, `iter`, indexing and slice
/// patterns work. The `assert_*` methods panic with a listing of every
/// captured record, so a failing test shows what was logged instead.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Records(pub(super) Vec<OwnedRecord>);

impl Records {
    /// The messages, in order.
    pub fn messages(&self) -> Vec<&str> {
        self.0.iter().map(|r| r.message.as_str()).collect()
    }

    /// The log records at `level` whose message contains `text`.
    pub fn matching<'a>(
        &'a self,
        level: Level,
        text: &'a str,
    ) -> impl Iterator<Item = &'a OwnedRecord> + 'a {
        self.0.iter().filter(move |r| is_match(r, level, text))
    }

    /// The first log record at `level` whose message contains `text`;
    /// panics (listing what was captured) if there is none.
    ///
    /// ```
    /// use elide::Level;
    /// let records = elide::testing::capture(|| elide::warn!(uid = 4, "disk full"));
    /// let r = records.assert_logged(Level::Warn, "disk");
    /// assert_eq!(r.field("uid"), Some(&elide::sink::OwnedValue::I64(4)));
    /// ```
    #[track_caller]
    pub fn assert_logged(&self, level: Level, text: &str) -> &OwnedRecord {
        match self.0.iter().find(|r| is_match(r, level, text)) {
            Some(r) => r,
            None => panic!(
                "expected a {level} record containing {text:?}; captured:\n{}",
                self.listing()
            ),
        }
    }

    /// Panics (listing what was captured) if a log record at `level`
    /// contains `text` (`""` matches every message).
    #[track_caller]
    pub fn assert_not_logged(&self, level: Level, text: &str) {
        if self.matching(level, text).next().is_some() {
            panic!(
                "expected no {level} record containing {text:?}; captured:\n{}",
                self.listing()
            );
        }
    }

    /// The first telemetry event named `name`; panics (listing what was
    /// captured) if there is none.
    ///
    /// ```
    /// elide::set_telemetry_for("doc::events", true);
    /// let records = elide::testing::capture(|| {
    ///     elide::telemetry!(target: "doc::events", "task.start", uid = "t.1");
    /// });
    /// records.assert_event("task.start").assert_field("uid", "t.1");
    /// ```
    #[track_caller]
    pub fn assert_event(&self, name: &str) -> &OwnedRecord {
        match self
            .0
            .iter()
            .find(|r| r.kind == Kind::Telemetry && r.name == name)
        {
            Some(r) => r,
            None => panic!(
                "expected a telemetry event {name:?}; captured:\n{}",
                self.listing()
            ),
        }
    }

    /// The records, owned.
    pub fn into_vec(self) -> Vec<OwnedRecord> {
        self.0
    }

    /// One line per record: level, message and fields.
    fn listing(&self) -> String {
        if self.0.is_empty() {
            return "  (nothing)".to_owned();
        }
        self.0.iter().map(|r| format!("  {r}\n")).collect()
    }
}

/// A log record at `level` whose message contains `text`.
fn is_match(r: &OwnedRecord, level: Level, text: &str) -> bool {
    r.kind != Kind::Telemetry && r.level == level && r.message.contains(text)
}

impl std::ops::Deref for Records {
    type Target = [OwnedRecord];
    fn deref(&self) -> &[OwnedRecord] {
        &self.0
    }
}

impl IntoIterator for Records {
    type Item = OwnedRecord;
    type IntoIter = std::vec::IntoIter<OwnedRecord>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a> IntoIterator for &'a Records {
    type Item = &'a OwnedRecord;
    type IntoIter = std::slice::Iter<'a, OwnedRecord>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl fmt::Display for Records {
    /// One line per record, as the assertions list them.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.listing())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(kind: Kind, level: Level, name: &'static str, message: &str) -> OwnedRecord {
        OwnedRecord {
            kind,
            level,
            target: "app",
            module_path: "app",
            file: "app.rs",
            line: 1,
            name,
            message: message.to_owned(),
            fields: Vec::new(),
            thread: 1,
            time: std::time::SystemTime::UNIX_EPOCH,
            span: None,
        }
    }

    /// Two log records about the disk at different levels, a telemetry
    /// event whose message would match them, and an unrelated log record.
    fn sample() -> Records {
        Records(vec![
            record(Kind::Log, Level::Info, "", "disk full"),
            record(Kind::Log, Level::Warn, "", "disk slow"),
            record(Kind::Telemetry, Level::Info, "disk.event", "disk"),
            record(Kind::Log, Level::Info, "", "net up"),
        ])
    }

    fn panic_text(f: impl FnOnce()) -> String {
        let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
            .expect_err("the assertion fails");
        match err.downcast::<String>() {
            Ok(text) => *text,
            Err(err) => err.downcast_ref::<&str>().unwrap_or(&"?").to_string(),
        }
    }

    fn messages<'a>(it: impl Iterator<Item = &'a OwnedRecord>) -> Vec<&'a str> {
        it.map(|r| r.message.as_str()).collect()
    }

    #[test]
    fn matching_takes_log_records_by_level_and_text_and_never_events() {
        let r = sample();
        assert_eq!(r.messages(), ["disk full", "disk slow", "disk", "net up"]);
        assert_eq!(messages(r.matching(Level::Info, "disk")), ["disk full"]);
        assert_eq!(
            messages(r.matching(Level::Info, "")),
            ["disk full", "net up"]
        );
        assert_eq!(messages(r.matching(Level::Warn, "disk")), ["disk slow"]);
        assert!(r.matching(Level::Warn, "full").next().is_none());
        assert_eq!(r.assert_logged(Level::Warn, "slow").message, "disk slow");
    }

    #[test]
    fn assertions_pass_or_panic_listing_every_record() {
        let r = sample();
        r.assert_not_logged(Level::Error, "");
        r.assert_not_logged(Level::Info, "slow");
        assert_eq!(r.assert_event("disk.event").kind, Kind::Telemetry);
        let listing = r.to_string();
        for failing in [
            panic_text(|| r.assert_not_logged(Level::Info, "net")),
            panic_text(|| {
                r.assert_logged(Level::Error, "disk");
            }),
            panic_text(|| {
                r.assert_event("disk.other");
            }),
        ] {
            assert!(failing.ends_with(&listing), "{failing}");
        }
        // A log record never counts as an event, whatever its name.
        let named_log = Records(vec![record(Kind::Log, Level::Info, "x", "x")]);
        assert!(panic_text(|| {
            named_log.assert_event("x");
        })
        .contains("expected a telemetry event \"x\""));
    }

    #[test]
    fn the_listing_has_one_indented_line_per_record() {
        assert_eq!(Records::default().to_string(), "  (nothing)");
        let r = sample();
        let listing = r.to_string();
        let lines: Vec<&str> = listing.lines().collect();
        assert_eq!(lines.len(), r.len());
        assert_eq!(lines[0], "  INFO app: disk full");
        assert_eq!(lines[2], "  event disk.event app:");
        assert!(listing.ends_with('\n'));
    }

    #[test]
    fn records_read_as_a_slice_and_iterate_owned_or_borrowed() {
        let r = sample();
        assert_eq!(r.len(), 4);
        assert_eq!(r[3].message, "net up");
        assert_eq!(messages((&r).into_iter()).len(), 4);
        let owned: Vec<String> = r.clone().into_iter().map(|x| x.message).collect();
        assert_eq!(owned, r.messages());
        assert_eq!(r.clone().into_vec(), r.to_vec());
    }
}
