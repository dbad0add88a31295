//! Where records go: the [`Sink`] trait and the built-in sinks.

#[cfg(feature = "async")]
mod r#async;
pub(crate) mod console;
#[cfg(feature = "file")]
mod durable;
#[cfg(feature = "file")]
mod file;
mod file_mode;
#[cfg(feature = "json")]
mod json;
mod memory;
#[cfg(feature = "prof")]
mod ntp_cache;
mod null;
#[cfg(any(feature = "file", feature = "json", feature = "prof"))]
mod open;
#[cfg(feature = "otlp")]
pub(crate) mod otlp;
#[cfg(feature = "prof")]
mod prof;
#[cfg(feature = "prof")]
pub(crate) mod profiles;
#[cfg(test)]
#[cfg(any(feature = "json", feature = "prof"))]
pub(crate) use scratch::assert_counts_a_write_error;
#[cfg(test)]
#[cfg(feature = "async")]
pub(crate) use scratch::until;
#[cfg(feature = "file")]
mod whole_lines;

pub use console::ConsoleSink;
#[cfg(feature = "file")]
#[cfg_attr(docsrs, doc(cfg(feature = "file")))]
pub use durable::{DurableFile, DurableFileSink};
#[cfg(feature = "file")]
#[cfg_attr(docsrs, doc(cfg(feature = "file")))]
pub use file::FileSink;
pub use file_mode::FileMode;
#[cfg(feature = "json")]
#[cfg_attr(docsrs, doc(cfg(feature = "json")))]
pub use json::JsonSink;
pub use memory::{MemorySink, OwnedRecord, OwnedValue};
pub use null::NullSink;
#[cfg(any(feature = "file", feature = "json", feature = "prof"))]
pub(crate) use open::open_append;
#[cfg(feature = "otlp")]
#[cfg_attr(docsrs, doc(cfg(feature = "otlp")))]
pub use otlp::{OtlpSink, OtlpSinkBuilder, OtlpStats, DEFAULT_ENDPOINT as OTLP_DEFAULT_ENDPOINT};
#[cfg(feature = "prof")]
#[cfg_attr(docsrs, doc(cfg(feature = "prof")))]
pub use prof::ProfSink;
#[cfg(all(feature = "async", feature = "otlp"))]
pub(crate) use r#async::DEFAULT_CAPACITY;
#[cfg(feature = "async")]
#[cfg_attr(docsrs, doc(cfg(feature = "async")))]
pub use r#async::{AsyncSink, AsyncSinkBuilder, AsyncStats, Overflow};

use crate::record::level::LevelFilter;
use crate::record::Record;

/// Whether this thread is an asynchronous sink's writer (never, without
/// the `async` feature).
pub(crate) fn on_writer_thread() -> bool {
    #[cfg(feature = "async")]
    {
        r#async::on_writer()
    }
    #[cfg(not(feature = "async"))]
    {
        false
    }
}

/// A destination for records.
///
/// A sink states the most verbose level it accepts; sites above the most
/// verbose level of all installed sinks are disabled in their cache, so
/// their records are never built. `emit` may be called from any thread;
/// it must not panic (a panic is contained and counted, but it still costs)
/// and should report write errors with [`report_write_error`](crate::report_write_error).
///
/// ```
/// use elide::{Record, Sink, LevelFilter};
/// struct Count(std::sync::atomic::AtomicUsize);
/// impl Sink for Count {
///     fn max_level(&self) -> LevelFilter { LevelFilter::Warn }
///     fn emit(&self, _: &Record<'_>) { self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed); }
/// }
/// ```
pub trait Sink: Send + Sync + 'static {
    /// The most verbose level this sink wants for log records.
    fn max_level(&self) -> LevelFilter {
        LevelFilter::Trace
    }
    /// Whether this sink wants telemetry events.
    fn wants_telemetry(&self) -> bool {
        false
    }
    /// Whether the calling thread is one this sink does its own work on
    /// (an asynchronous sink's writer thread). A record logged on such a
    /// thread (by a sink the writer drives, say) is then not delivered to
    /// the installed set that holds this sink, where it would feed the
    /// queue being drained, but dropped and counted as nested in
    /// [`stats`](crate::stats). `false` by default; a sink that runs no
    /// thread of its own keeps it, and one that wraps another answers for
    /// both.
    fn is_own_thread(&self) -> bool {
        false
    }
    /// Writes one record.
    fn emit(&self, record: &Record<'_>);
    /// Makes everything emitted so far durable as far as this sink promises
    /// (written to the OS, fsynced, or drained from a queue).
    fn flush(&self) {}
}

/// Helpers for the sinks' unit tests.
// Plain `cfg(test)`, so mutation testing knows it for test code.
#[cfg_attr(
    not(any(feature = "file", feature = "json", feature = "prof")),
    allow(dead_code)
)]
#[cfg(test)]
pub(crate) mod scratch {
    use std::path::{Path, PathBuf};

    #[cfg(any(feature = "json", feature = "prof"))]
    use super::Sink;

    /// A directory of one test's files under the system temp directory,
    /// removed with everything in it when the guard drops, also when the test
    /// fails first, so a run leaves nothing behind.
    pub(crate) struct Scratch(PathBuf);

    impl Scratch {
        /// An empty directory unique to this process and `tag`.
        pub(crate) fn dir(tag: &str) -> Scratch {
            let dir = std::env::temp_dir().join(format!("elide-{tag}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).expect("create a scratch directory");
            Scratch(dir)
        }
    }

    impl std::ops::Deref for Scratch {
        type Target = Path;
        fn deref(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// For the asynchronous sinks' unit tests: waits until `cond` holds,
    /// failing the test after ten seconds (`what` says what never happened).
    #[cfg(feature = "async")]
    pub(crate) fn until(what: &str, cond: impl Fn() -> bool) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while !cond() {
            assert!(
                std::time::Instant::now() < deadline,
                "gave up waiting: {what}"
            );
            std::thread::yield_now();
        }
    }

    /// One telemetry event into `sink`, then a flush, raises the count of
    /// write errors (the sink writes to a full device).
    #[cfg(any(feature = "json", feature = "prof"))]
    pub(crate) fn assert_counts_a_write_error(sink: &dyn Sink) {
        let before = crate::stats::stats().write_errors;
        sink.emit(&crate::record::Record::new(
            &crate::record::metadata::TEST_EVENT,
            crate::record::level::Level::Info,
            format_args!("x"),
            &[],
        ));
        sink.flush();
        assert!(crate::stats::stats().write_errors > before);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct OnlyEmit;
    impl Sink for OnlyEmit {
        fn emit(&self, _: &Record<'_>) {}
    }

    #[test]
    fn a_sink_that_says_nothing_takes_every_log_level_and_no_telemetry() {
        assert_eq!(OnlyEmit.max_level(), LevelFilter::Trace);
        assert!(!OnlyEmit.wants_telemetry());
    }

    #[test]
    fn a_test_thread_is_no_async_writer() {
        assert!(!on_writer_thread());
    }
}
