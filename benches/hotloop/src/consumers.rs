//! Small consumers for the comparisons: elide sinks, `log` loggers and
//! `tracing` subscribers that do the same (nothing, keep, or format) so a
//! row compares the facades, not the back ends.

use std::cell::RefCell;
use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};
use std::time::{SystemTime, UNIX_EPOCH};

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record as SpanRecord};
use tracing::subscriber::Interest;
use tracing::{Event, Metadata, Subscriber};

thread_local! {
    static LINE: RefCell<String> = const { RefCell::new(String::new()) };
}

/// Formats into a reused per-thread buffer and writes it to `out`.
fn write_line(out: &mut impl Write, render: impl FnOnce(&mut String)) {
    LINE.with(|buf| {
        let mut buf = buf.borrow_mut();
        buf.clear();
        render(&mut buf);
        let _ = out.write_all(buf.as_bytes());
    })
}

/// A fresh path in the temp directory for one child's log file. The
/// configuration opens it and then removes the name: the open handle keeps
/// the file until the child exits, and no run leaves files behind.
pub fn temp_log_path(lib: &str) -> PathBuf {
    std::env::temp_dir().join(format!("elide-bench-{lib}-{}.log", std::process::id()))
}

/// The 64 KiB-buffered file the "buffered file" row writes through.
pub fn buffered_temp_file(lib: &str) -> BufWriter<File> {
    let path = temp_log_path(lib);
    let file = File::create(&path).expect("create a file in the temp directory");
    let _ = std::fs::remove_file(&path);
    BufWriter::with_capacity(64 * 1024, file)
}

fn epoch_secs() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

// ---- elide ----------------------------------------------------------------

/// Wants telemetry and discards it (`NullSink` does not want telemetry).
pub struct NullTelemetrySink;

impl elide::Sink for NullTelemetrySink {
    fn max_level(&self) -> elide::LevelFilter {
        elide::LevelFilter::Off
    }
    fn wants_telemetry(&self) -> bool {
        true
    }
    fn emit(&self, _: &elide::Record<'_>) {}
}

/// Renders the RADICAL line format and writes it to `io::sink()`: the cost
/// of a console sink without the terminal.
pub struct FmtSink;

impl elide::Sink for FmtSink {
    fn emit(&self, record: &elide::Record<'_>) {
        write_line(&mut std::io::sink(), |buf| {
            elide::format::Format::Radical.write(record, buf)
        });
    }
}

/// Renders JSON lines and writes them to `io::sink()`.
pub struct JsonFmtSink;

impl elide::Sink for JsonFmtSink {
    fn emit(&self, record: &elide::Record<'_>) {
        write_line(&mut std::io::sink(), |buf| {
            elide::format::Format::Json.write(record, buf)
        });
    }
}

/// Keeps every message, rendered, in memory: the same work as `MemLogger`
/// and `MemSubscriber` (elide's own `MemorySink` keeps more: its row is
/// separate).
pub struct MemStrings(pub Mutex<Vec<String>>);

impl elide::Sink for MemStrings {
    fn emit(&self, r: &elide::Record<'_>) {
        let msg = r.args().to_string();
        self.0.lock().unwrap_or_else(|e| e.into_inner()).push(msg);
    }
}

// ---- log ------------------------------------------------------------------

/// Accepts everything, does nothing.
pub struct NoopLogger;

impl log::Log for NoopLogger {
    fn enabled(&self, _: &log::Metadata<'_>) -> bool {
        true
    }
    fn log(&self, _: &log::Record<'_>) {}
    fn flush(&self) {}
}

/// Accepts Info and above: the logger decides, not the global max level.
pub struct InfoLogger;

impl log::Log for InfoLogger {
    fn enabled(&self, m: &log::Metadata<'_>) -> bool {
        m.level() <= log::Level::Info
    }
    fn log(&self, r: &log::Record<'_>) {
        if self.enabled(r.metadata()) {
            std::hint::black_box(r.args());
        }
    }
    fn flush(&self) {}
}

/// Keeps every message, rendered, in memory.
pub struct MemLogger(pub Mutex<Vec<String>>);

impl log::Log for MemLogger {
    fn enabled(&self, _: &log::Metadata<'_>) -> bool {
        true
    }
    fn log(&self, r: &log::Record<'_>) {
        let msg = r.args().to_string();
        self.0.lock().unwrap_or_else(|e| e.into_inner()).push(msg);
    }
    fn flush(&self) {}
}

/// `time : target : LEVEL : message`, the line of the `log` loggers below.
fn log_line(buf: &mut String, r: &log::Record<'_>) {
    let _ = writeln!(
        buf,
        "{:.3} : {} : {} : {}",
        epoch_secs(),
        r.target(),
        r.level(),
        r.args()
    );
}

/// Formats the line and writes it to `io::sink()`.
pub struct FmtLogger;

impl log::Log for FmtLogger {
    fn enabled(&self, _: &log::Metadata<'_>) -> bool {
        true
    }
    fn log(&self, r: &log::Record<'_>) {
        write_line(&mut std::io::sink(), |buf| log_line(buf, r));
    }
    fn flush(&self) {}
}

/// Formats the line and writes it to a 64 KiB-buffered file under a lock.
pub struct FileLogger(pub OnceLock<Mutex<BufWriter<File>>>);

impl log::Log for FileLogger {
    fn enabled(&self, _: &log::Metadata<'_>) -> bool {
        true
    }
    fn log(&self, r: &log::Record<'_>) {
        if let Some(file) = self.0.get() {
            let mut file = file.lock().unwrap_or_else(|e| e.into_inner());
            write_line(&mut *file, |buf| log_line(buf, r));
        }
    }
    fn flush(&self) {
        if let Some(file) = self.0.get() {
            let _ = file.lock().unwrap_or_else(|e| e.into_inner()).flush();
        }
    }
}

// ---- tracing --------------------------------------------------------------

/// Wants every callsite, does nothing with events.
pub struct NoopSubscriber;

impl Subscriber for NoopSubscriber {
    fn register_callsite(&self, _: &'static Metadata<'static>) -> Interest {
        Interest::always()
    }
    fn max_level_hint(&self) -> Option<tracing::level_filters::LevelFilter> {
        Some(tracing::level_filters::LevelFilter::TRACE)
    }
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }
    fn record(&self, _: &Id, _: &SpanRecord<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, _: &Event<'_>) {}
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

/// Keeps every event's message, rendered, in memory.
pub struct MemSubscriber(pub Mutex<Vec<String>>);

struct MessageVisitor<'a>(&'a mut String);

impl Visit for MessageVisitor<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.0, "{value:?}");
        }
    }
}

impl Subscriber for MemSubscriber {
    fn register_callsite(&self, _: &'static Metadata<'static>) -> Interest {
        Interest::always()
    }
    fn max_level_hint(&self) -> Option<tracing::level_filters::LevelFilter> {
        Some(tracing::level_filters::LevelFilter::TRACE)
    }
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }
    fn record(&self, _: &Id, _: &SpanRecord<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, e: &Event<'_>) {
        let mut msg = String::new();
        e.record(&mut MessageVisitor(&mut msg));
        self.0.lock().unwrap_or_else(|e| e.into_inner()).push(msg);
    }
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}
