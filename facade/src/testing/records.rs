//! What a capture collected, with the assertions tests make on it.

use std::fmt::{self, Write};

use crate::metadata::Kind;
use crate::sink::OwnedRecord;
use crate::Level;

/// The records a capture collected, in the order they were logged (per
/// thread; records of threads that entered the capture interleave as they
/// happened).
///
/// Dereferences to `[OwnedRecord]`, so `len`, `iter`, indexing and slice
/// patterns work. The `assert_*` methods panic with a listing of every
/// captured record, so a failing test shows what was logged instead.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Records(Vec<OwnedRecord>);

impl Records {
    pub(crate) fn new(records: Vec<OwnedRecord>) -> Records {
        Records(records)
    }

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
        let mut out = String::new();
        for r in &self.0 {
            let _ = write!(out, "  {r}");
            out.push('\n');
        }
        out
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
