//! spdlog-rs, the peer issue 14 names: its sites, sinks and configurations.
//!
//! Best configuration as its documentation gives it: a logger built once and
//! passed to each site (`info!(logger: ..)`), so no call clones the default
//! logger's `Arc` (two locked instructions per call with
//! `spdlog::default_logger()`). Lines use its default `FullFormatter`
//! (`[local date time.millis] [logger] [level] message`), its fastest
//! layout and the nearest to the `log` and `tracing` lines; one extra row
//! gives it the RADICAL columns through its compile-time `pattern!`
//! (`epoch.millis : logger : pid : tid : level : message`: no column padding,
//! which a pattern cannot do, and lower-case level names).

use std::sync::{Arc, OnceLock};

use spdlog::formatter::{pattern, PatternFormatter};
use spdlog::sink::{AsyncPoolSink, FileSink, GetSinkProp, Sink, SinkProp, WriteSink};
use spdlog::{Level, LevelFilter, Logger, Record};

use crate::sites::hot;

static LOGGER: OnceLock<Arc<Logger>> = OnceLock::new();

/// The logger a configuration built; what a program keeps in a static.
#[inline(always)]
fn logger() -> &'static Logger {
    LOGGER
        .get()
        .expect("an spdlog-rs variant's setup built the logger")
}

hot!(hot_spdlog_debug, |x, n| {
    spdlog::debug!(logger: logger(), "iteration {}", x)
});
hot!(hot_spdlog_info, |x, n| {
    spdlog::info!(logger: logger(), "iteration {}", x)
});

/// Wants every record, does nothing with it.
struct NullSink {
    prop: SinkProp,
}

impl GetSinkProp for NullSink {
    fn prop(&self) -> &SinkProp {
        &self.prop
    }
}

impl Sink for NullSink {
    fn log(&self, _: &Record<'_>) -> spdlog::Result<()> {
        Ok(())
    }
    fn flush(&self) -> spdlog::Result<()> {
        Ok(())
    }
}

/// The RADICAL line's columns, parsed at compile time.
fn radical_layout() -> PatternFormatter<impl spdlog::formatter::Pattern + Clone> {
    PatternFormatter::new(pattern!(
        "{unix_timestamp}.{millisecond} : {logger} : {pid} : {tid} : {level} : {payload}{eol}"
    ))
}

fn with(sink: Arc<dyn Sink>, sink_level: LevelFilter, level: LevelFilter) {
    crate::variants::prelude();
    // Every level stored at run time, as the prelude does for the others.
    for l in [LevelFilter::Off, LevelFilter::All, level] {
        sink.set_level_filter(l);
    }
    sink.set_level_filter(sink_level);
    let logger = Logger::builder()
        .name("elide_benches::sites")
        .sink(sink)
        .level_filter(level)
        .build_arc()
        .expect("a valid logger");
    if LOGGER.set(logger).is_err() {
        panic!("one spdlog-rs configuration per process");
    }
}

fn at_least(level: Level) -> LevelFilter {
    LevelFilter::MoreSevereEqual(level)
}

fn null_sink() -> Arc<dyn Sink> {
    Arc::new(NullSink {
        prop: SinkProp::default(),
    })
}

/// A line in the default layout into `io::sink()`, formatted on the caller.
fn fmt_sink() -> Arc<dyn Sink> {
    WriteSink::builder()
        .target(std::io::sink())
        .build_arc()
        .expect("a WriteSink over io::sink")
}

/// Logger at Info, a null sink: a `debug!` site is off.
pub fn s_info_null() {
    with(null_sink(), LevelFilter::All, at_least(Level::Info));
}
/// Logger at Trace, the only sink takes Info.
pub fn s_trace_null_info() {
    with(null_sink(), at_least(Level::Info), LevelFilter::All);
}
/// Everything on, a sink that does nothing.
pub fn s_trace_null() {
    with(null_sink(), LevelFilter::All, LevelFilter::All);
}
/// The line formatted on the caller into `io::sink()`.
pub fn s_info_fmt() {
    with(fmt_sink(), LevelFilter::All, at_least(Level::Info));
}
/// The RADICAL columns formatted on the caller into `io::sink()`.
pub fn s_info_fmt_radical() {
    let sink = WriteSink::builder()
        .target(std::io::sink())
        .formatter(radical_layout())
        .build_arc()
        .expect("a WriteSink over io::sink");
    with(sink, LevelFilter::All, at_least(Level::Info));
}
/// The line into spdlog-rs's `FileSink` with a 64 KiB buffer, a real file
/// in the temp directory (unlinked at once: the child's open handle keeps
/// it until exit).
pub fn s_info_file() {
    let path = std::env::temp_dir().join(format!("elide-bench-spdlog-{}.log", std::process::id()));
    let sink = FileSink::builder()
        .path(&path)
        .truncate(true)
        .capacity(64 * 1024)
        .build_arc()
        .expect("a FileSink in the temp directory");
    let _ = std::fs::remove_file(&path);
    with(sink, LevelFilter::All, at_least(Level::Info));
}
/// `AsyncPoolSink` (its default pool: one thread, 8,192 records, `Block`)
/// over the `io::sink()` line: the caller renders the message, copies the
/// record and sends it; the pool's thread formats.
pub fn s_info_async() {
    let sink = AsyncPoolSink::builder()
        .sink(fmt_sink())
        .build_arc()
        .expect("an AsyncPoolSink on the default pool");
    with(sink, LevelFilter::All, at_least(Level::Info));
}
