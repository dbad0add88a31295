//! What [`capture`](super::capture) returns: the closure's value and the
//! records.

use std::fmt;

use super::Records;
use crate::sink::OwnedRecord;

/// The value the closure given to [`capture`](super::capture) returned,
/// and the records it logged.
///
/// It dereferences to [`Records`], so the assertions read as on the
/// records themselves; the value is the field [`value`](Captured::value):
///
/// ```
/// use elide::{testing, Level};
///
/// fn parse(text: &str) -> Option<u32> {
///     let n = text.parse().ok();
///     if n.is_none() {
///         elide::warn!(text, "not a number");
///     }
///     n
/// }
///
/// let parsed = testing::capture(|| parse("x1"));
/// assert_eq!(parsed.value, None);
/// parsed.assert_logged(Level::Warn, "not a number");
///
/// // Or both apart:
/// let (n, records) = testing::capture(|| parse("12")).into_parts();
/// assert_eq!(n, Some(12));
/// assert!(records.is_empty());
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
#[must_use = "a capture is made to look at what was logged"]
pub struct Captured<R> {
    /// What the closure returned.
    pub value: R,
    /// What it logged.
    pub records: Records,
}

impl<R> Captured<R> {
    /// The value and the records, apart.
    pub fn into_parts(self) -> (R, Records) {
        (self.value, self.records)
    }
}

impl<R> std::ops::Deref for Captured<R> {
    type Target = Records;
    fn deref(&self) -> &Records {
        &self.records
    }
}

impl<R> IntoIterator for Captured<R> {
    type Item = OwnedRecord;
    type IntoIter = std::vec::IntoIter<OwnedRecord>;
    fn into_iter(self) -> Self::IntoIter {
        self.records.into_iter()
    }
}

impl<'a, R> IntoIterator for &'a Captured<R> {
    type Item = &'a OwnedRecord;
    type IntoIter = std::slice::Iter<'a, OwnedRecord>;
    fn into_iter(self) -> Self::IntoIter {
        self.records.iter()
    }
}

impl<R> fmt::Display for Captured<R> {
    /// The records, one line each, as the assertions list them.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.records.fmt(f)
    }
}
