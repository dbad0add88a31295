//! Counters of what the facade could not deliver, for operators.
//!
//! Statics owned here: `NESTED_DROPPED`, `SINK_PANICS`, `WRITE_ERRORS` and
//! `REPORTED` (sinks whose write errors were reported once).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

pub(crate) static NESTED_DROPPED: AtomicU64 = AtomicU64::new(0);
pub(crate) static SINK_PANICS: AtomicU64 = AtomicU64::new(0);
pub(crate) static WRITE_ERRORS: AtomicU64 = AtomicU64::new(0);
/// Sinks whose write errors were reported (by name).
static REPORTED: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// A snapshot of the facade's own counters: its health, and the call
/// sites it knows.
///
/// ```
/// let s = elide::stats();
/// assert_eq!(s.nested_dropped, s.nested_dropped); // counts only grow
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Records emitted from inside a sink or a `Display` impl on the same
    /// thread while it was already emitting; dropped to avoid deadlock.
    pub nested_dropped: u64,
    /// Sink `emit` calls that panicked, in the sink's own code or in the
    /// `Debug`/`Display` of a value it formatted; the panic was contained.
    pub sink_panics: u64,
    /// Failed writes reported by sinks (disk full, closed pipe, ...).
    pub write_errors: u64,
    /// Call sites registered so far (a site registers on its first hit).
    pub sites: u64,
}

/// The current health counters.
pub fn stats() -> Stats {
    Stats {
        nested_dropped: NESTED_DROPPED.load(Ordering::Relaxed),
        sink_panics: SINK_PANICS.load(Ordering::Relaxed),
        write_errors: WRITE_ERRORS.load(Ordering::Relaxed),
        sites: crate::site::callsite::registered_count() as u64,
    }
}

/// Counts a failed write and reports it on stderr the first time a given
/// sink (by `name`) fails. For sink implementations.
pub fn report_write_error(name: &str, err: &std::io::Error) {
    WRITE_ERRORS.fetch_add(1, Ordering::Relaxed);
    if first_time(&REPORTED, name, usize::MAX) {
        // Best effort: stderr itself may be the failing stream.
        let _ = crate::os::process::write_stderr(
            format!(
                "elide: writing to {name} failed: {err} (further errors are counted in elide::stats())\n"
            )
            .as_bytes(),
        );
    }
}

/// Whether `key` is not in `seen` yet; then it is added, if `seen` holds
/// fewer than `max`, else nothing is new. A few keys at most: a list, so no
/// hash map is linked for this. In a forked child the list may be held for
/// good by a thread of the parent: then nothing is new either.
pub(crate) fn first_time(seen: &Mutex<Vec<String>>, key: &str, max: usize) -> bool {
    let Some(mut seen) = crate::os::process::lock(seen) else {
        return false;
    };
    let new = seen.len() < max && !seen.iter().any(|s| s == key);
    if new {
        seen.push(key.to_owned());
    }
    new
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_errors_are_counted_each_time_and_reported_once_per_sink() {
        let err = std::io::Error::other("disk on fire");
        let before = stats().write_errors;
        report_write_error("stats-test-sink", &err);
        report_write_error("stats-test-sink", &err);
        assert!(stats().write_errors >= before + 2);
        let reported = REPORTED.lock().unwrap();
        let times = reported.iter().filter(|s| *s == "stats-test-sink").count();
        assert_eq!(times, 1, "one report per sink: {reported:?}");
    }
}
