//! The installed set of sinks and delivery of records to them.
//!
//! The set lives behind `arc-swap`: emitting threads load it without locks
//! while another thread replaces it. Installing a set rewrites every site's
//! cache, because the effective threshold of a site is capped by the most
//! verbose level any installed sink accepts.

use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use arc_swap::ArcSwapOption;

use crate::callsite;
use crate::metadata::Kind;
use crate::record::Record;
use crate::sink::Sink;
use crate::stats;
use crate::LevelFilter;

struct SinkSet {
    sinks: Vec<Arc<dyn Sink>>,
    max_level: LevelFilter,
    telemetry: bool,
}

impl SinkSet {
    fn new(sinks: Vec<Arc<dyn Sink>>) -> SinkSet {
        let max_level = sinks
            .iter()
            .map(|s| s.max_level())
            .max()
            .unwrap_or(LevelFilter::Off);
        let telemetry = sinks.iter().any(|s| s.wants_telemetry());
        SinkSet {
            sinks,
            max_level,
            telemetry,
        }
    }
}

static SINKS: ArcSwapOption<SinkSet> = ArcSwapOption::const_empty();

/// Replaces the installed sinks. Records already being emitted finish on the
/// old set; the old sinks are flushed.
///
/// ```
/// use std::sync::Arc;
/// use elide::sink::MemorySink;
/// let mem = Arc::new(MemorySink::new());
/// elide::set_sinks([mem.clone() as Arc<dyn elide::Sink>]);
/// elide::set_level(elide::LevelFilter::Info);
/// elide::info!(uid = 7, "hello");
/// assert_eq!(mem.messages(), ["hello"]);
/// ```
pub fn set_sinks<I: IntoIterator<Item = Arc<dyn Sink>>>(sinks: I) {
    let set = Arc::new(SinkSet::new(sinks.into_iter().collect()));
    let mut old = None;
    callsite::reconfigure(|| old = SINKS.swap(Some(set)));
    if let Some(old) = old {
        old.sinks.iter().for_each(|s| s.flush());
    }
}

/// Adds a sink to the installed set.
pub fn add_sink(sink: Arc<dyn Sink>) {
    crate::init::ensure();
    callsite::reconfigure(|| {
        let mut sinks = SINKS
            .load()
            .as_ref()
            .map(|s| s.sinks.clone())
            .unwrap_or_default();
        sinks.push(sink);
        SINKS.store(Some(Arc::new(SinkSet::new(sinks))));
    });
}

/// The installed sinks.
pub fn sinks() -> Vec<Arc<dyn Sink>> {
    crate::init::ensure();
    SINKS
        .load()
        .as_ref()
        .map(|s| s.sinks.clone())
        .unwrap_or_default()
}

/// Flushes every installed sink (for async sinks: waits until what was
/// accepted so far is written).
pub fn flush() {
    if let Some(set) = SINKS.load_full() {
        set.sinks.iter().for_each(|s| s.flush());
    }
}

/// Installs `sinks` if nothing is installed yet, without touching sites
/// (used while the process configuration is first read). Returns whether
/// they were installed.
pub(crate) fn install_initial(sinks: Vec<Arc<dyn Sink>>) -> bool {
    let set = Arc::new(SinkSet::new(sinks));
    let prev = SINKS.compare_and_swap(&None::<Arc<SinkSet>>, Some(set));
    prev.is_none()
}

/// Whether a sink set (possibly empty) is installed.
pub(crate) fn is_installed() -> bool {
    SINKS.load().is_some()
}

pub(crate) fn max_level() -> LevelFilter {
    SINKS
        .load()
        .as_ref()
        .map_or(LevelFilter::Off, |s| s.max_level)
}

pub(crate) fn wants_telemetry() -> bool {
    SINKS.load().as_ref().is_some_and(|s| s.telemetry)
}

thread_local! {
    static EMITTING: Cell<bool> = const { Cell::new(false) };
}

/// Resets the re-entrancy flag even if a sink unwinds.
struct Emitting;

impl Drop for Emitting {
    fn drop(&mut self) {
        EMITTING.with(|e| e.set(false));
    }
}

/// Delivers a record to every sink that wants it.
///
/// A record emitted while this thread is already inside `dispatch` (a sink
/// or a `Display` impl that logs) is dropped and counted in
/// [`stats`](crate::stats), so logging cannot deadlock or recurse. A sink
/// that panics is contained and counted; the caller never sees it.
pub fn dispatch(record: &Record<'_>) {
    if EMITTING.with(|e| e.replace(true)) {
        stats::NESTED_DROPPED.fetch_add(1, Ordering::Relaxed);
        return;
    }
    let _reset = Emitting;
    let guard = SINKS.load();
    let Some(set) = guard.as_ref() else { return };
    let telemetry = record.kind() == Kind::Telemetry;
    for sink in &set.sinks {
        let wanted = if telemetry {
            sink.wants_telemetry()
        } else {
            record.level() <= sink.max_level()
        };
        if wanted && catch_unwind(AssertUnwindSafe(|| sink.emit(record))).is_err() {
            stats::SINK_PANICS.fetch_add(1, Ordering::Relaxed);
        }
    }
}
