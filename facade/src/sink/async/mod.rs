//! The async sink: callers copy a record into a buffer of their thread; a
//! background writer thread drains the buffers oldest record first and
//! formats the records into batches, writes each batch and flushes once
//! per batch, or (for [`AsyncSinkBuilder::wrap`]) rebuilds each record and hands
//! it to any other [`Sink`]. One engine serves both outputs.
//!
//! # Guarantees (for both outputs)
//! - **[`Overflow::Block`] loses nothing**: a full buffer makes the caller
//!   wait; a record too large for its buffer goes in a heap block of its own.
//! - **[`Overflow::Drop`] counts exactly**: written + dropped + failed =
//!   emitted, and the writer announces drops in the output itself.
//! - **Memory is bounded in bytes** beyond the thread buffers, by
//!   [`max_bytes`](AsyncSinkBuilder::max_bytes): a record over it is
//!   treated like one that finds its buffer full.
//! - **A failed write tears no later record** (see `whole_lines`).
//! - **[`flush`](Sink::flush) waits** until everything accepted before it
//!   is written and the output flushed (within
//!   [`shutdown_timeout`](AsyncSinkBuilder::shutdown_timeout), if set).
//! - **Writer errors never reach the caller**: a failing or panicking
//!   output or wrapped sink is counted in [`AsyncStats::failed`], reported
//!   once on stderr, and the writer goes on; if the writer thread cannot
//!   be started, that is reported and records are dropped and counted.
//!
//! # Where formatting happens
//! On the writer: the caller copies its record (see `queue`) with its time,
//! thread number and, for a wrapped sink, thread name; the writer lays it
//! out straight into its batch buffer, byte for byte what a synchronous
//! sink writes (a custom [`Format`] runs on the writer thread).
//!
//! # Batching (group commit)
//! The writer takes whatever is queued (up to the capacity), appends the
//! lines to one buffer, writes it (in 64 KiB pieces) and calls `flush`
//! once. With a [`DurableFile`](crate::sink::DurableFile) that is one
//! `sync_data` per batch, so durable throughput is batch size x fsync
//! rate, while callers only ever wait for room in their buffer. A wrapped
//! sink gets its records one by one and is flushed only when a flush is
//! requested, and when the writer stops.
//!
//! # Files
//! `queue` (the callers' side: push, flush, close), `lanes` (each thread's
//! ring), `ring` (one single-producer ring), `codec` (records as words:
//! most of the unsafe code), `shared` (state of callers and writer),
//! `wake` (when the writer sleeps and who wakes it), `writer` (the writer
//! loop and its two outputs).
//!
//! Statics owned here: `ON_WRITER` (set on writer threads) and the
//! metadata of the writer's own "records dropped" line.

mod codec;
#[cfg(test)]
mod engine_tests;
mod lanes;
mod queue;
mod ring;
mod shared;
mod wake;
mod writer;

use std::cell::Cell;
use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::format::Format;
use crate::record::level::{Level, LevelFilter};
use crate::record::metadata::{Kind, Metadata};
use crate::record::Record;
use crate::sink::{DurableFile, Sink};
use queue::RingQueue;
use writer::Output;

/// What a caller does when the queue is full.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Overflow {
    /// Wait for room: nothing is lost; a slow disk slows the caller.
    #[default]
    Block,
    /// Drop the new record and count it: the caller never waits.
    Drop,
}

/// Default queue capacity, in records ([`AsyncSink::DEFAULT_CAPACITY`]).
pub(crate) const DEFAULT_CAPACITY: usize = 65_536;

/// The smallest thread buffer: room for the records of most sites (one
/// larger than half a buffer is queued in a heap block of its own).
const MIN_THREAD_BUFFER: usize = 64 * 1024;

/// Bytes per record assumed when a capacity in records bounds a thread
/// buffer.
const BYTES_PER_RECORD: usize = 64;

/// Counters of an [`AsyncSink`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AsyncStats {
    /// Records written and flushed by the writer.
    pub written: u64,
    /// Records dropped because the queue was full ([`Overflow::Drop`]), or
    /// because the writer thread was gone.
    pub dropped: u64,
    /// Records lost because the writer's `write` or `flush` failed.
    pub failed: u64,
    /// Messages in the queue right now.
    pub queued: u64,
    /// Bytes of the records in the queue right now (at most
    /// [`max_bytes`](AsyncStats::max_bytes), or one record when the queue
    /// was empty).
    pub queued_bytes: u64,
    /// The byte budget of the queue ([`AsyncSinkBuilder::max_bytes`]).
    pub max_bytes: u64,
}

thread_local! {
    /// Set on writer threads: they never block on a queue (a writer that
    /// logs into a full queue would wait for itself) and never flush, and
    /// dispatch drops (and counts) the records a wrapped sink or writer
    /// emits there, which must not feed its own queue.
    static ON_WRITER: Cell<bool> = const { Cell::new(false) };
}

/// Whether this thread is an async sink's writer.
pub(crate) fn on_writer() -> bool {
    ON_WRITER.try_with(Cell::get).unwrap_or(false)
}

/// A sink that queues records for a background writer thread, which
/// formats and writes them in batches to a file or any [`io::Write`], or
/// hands them to another sink.
///
/// Cargo feature `async` (on by default).
///
/// With the defaults: [`open`](AsyncSink::open) (a file),
/// [`open_durable`](AsyncSink::open_durable) (a file, one fsync per
/// batch), [`wrap`](AsyncSink::wrap) (any sink), [`new`](AsyncSink::new)
/// (any writer). With options: [`AsyncSink::builder`], then the same four
/// outputs as the builder's last call, as with [`std::fs::OpenOptions`].
/// Writing bytes is the fast path: lines are formatted straight into the
/// writer's batch buffer.
///
/// ```
/// use std::sync::Arc;
/// use elide::sink::{AsyncSink, Overflow};
/// # let dir = std::env::temp_dir().join(format!("elide-doc-async-{}", std::process::id()));
/// let sink = Arc::new(AsyncSink::builder().overflow(Overflow::Drop).open(dir.join("app.log"))?);
/// elide::set_sinks([sink.clone() as Arc<dyn elide::Sink>]);
/// elide::set_level(elide::LevelFilter::Info);
/// elide::info!(n = 1, "queued");
/// elide::flush(); // returns once the line is written
/// let s = sink.stats();
/// assert_eq!(s.written + s.dropped, 1);
/// # elide::set_sinks([]); drop(sink); let _ = std::fs::remove_dir_all(&dir);
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct AsyncSink {
    /// The process whose writer thread drains the queue: a forked child
    /// has no writer, so it must neither queue nor wait for one.
    pid: u32,
    /// The per-thread buffers and their writer (and the sink's name and
    /// overflow policy).
    rings: RingQueue,
    telemetry: bool,
    level: LevelFilter,
    capacity: usize,
    shutdown_timeout: Option<Duration>,
    /// Set by the exit flush: records are dropped and counted from now on.
    closed: AtomicBool,
}

impl std::fmt::Debug for AsyncSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let shared = self.rings.shared();
        f.debug_struct("AsyncSink")
            .field("name", &shared.name)
            .field("level", &self.level)
            .field("policy", &shared.policy)
            .field("capacity", &self.capacity)
            .field("shutdown_timeout", &self.shutdown_timeout)
            .field("wraps_sink", &shared.names)
            .field("telemetry", &self.telemetry)
            .finish_non_exhaustive()
    }
}

/// The options of an [`AsyncSink`], from [`AsyncSink::builder`]; the call
/// that names the output ([`open`](AsyncSinkBuilder::open),
/// [`open_durable`](AsyncSinkBuilder::open_durable),
/// [`wrap`](AsyncSinkBuilder::wrap), [`build`](AsyncSinkBuilder::build))
/// starts the writer thread.
pub struct AsyncSinkBuilder {
    /// The name in error reports; by default the output's (the path).
    name: Option<String>,
    format: Format,
    level: LevelFilter,
    policy: Overflow,
    capacity: usize,
    max_bytes: usize,
    thread_buffer: usize,
    shutdown_timeout: Option<Duration>,
}

impl std::fmt::Debug for AsyncSinkBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AsyncSinkBuilder")
            .field("name", &self.name)
            .field("format", &self.format)
            .field("level", &self.level)
            .field("policy", &self.policy)
            .field("capacity", &self.capacity)
            .field("max_bytes", &self.max_bytes)
            .field("shutdown_timeout", &self.shutdown_timeout)
            .finish_non_exhaustive()
    }
}

impl AsyncSinkBuilder {
    /// Sets the size in bytes of each logging thread's buffer (default
    /// [`AsyncSink::DEFAULT_THREAD_BUFFER`], at least 64 KiB). An `AsyncSink` gives
    /// every thread that logs into it a buffer of its own, allocated (and its pages touched)
    /// on the thread's first record; the [`capacity`](Self::capacity) in
    /// records bounds it too, at 64 bytes a record. A full buffer blocks or
    /// drops per the [`overflow`](Self::overflow) policy. A buffer of
    /// 2 MiB or more is put on huge pages where the kernel offers them
    /// (Linux transparent huge pages set to `always` or `madvise`), so a
    /// caller does not wait for a page walk every few dozen records.
    pub fn thread_buffer(mut self, bytes: usize) -> AsyncSinkBuilder {
        self.thread_buffer = bytes;
        self
    }

    /// Sets the capacity in records (at least 1; default
    /// [`AsyncSink::DEFAULT_CAPACITY`]): it bounds each thread's buffer at 64 bytes a
    /// record (see [`thread_buffer`](Self::thread_buffer), at least 64 KiB
    /// whatever the capacity) and the records the writer takes into one
    /// batch.
    pub fn capacity(mut self, capacity: usize) -> AsyncSinkBuilder {
        self.capacity = capacity.max(1);
        self
    }
    /// Bounds the bytes queued records hold beyond the sink's fixed
    /// buffers (default [`AsyncSink::DEFAULT_MAX_BYTES`], 64 MiB): a record that would
    /// pass the bound makes the caller wait ([`Overflow::Block`]) or is
    /// dropped and counted ([`Overflow::Drop`]), exactly as a full buffer
    /// does. A record larger than the bound still passes when nothing else
    /// is queued.
    ///
    /// What the sink holds at worst, writing bytes or wrapping a sink: one
    /// [`thread_buffer`](Self::thread_buffer) per thread logging at the
    /// same time (an exited thread's buffer goes, records and all, to the
    /// next thread that logs; empty ones are kept for reuse only within
    /// `max_bytes`), plus `max_bytes` of long texts (over 256 bytes, which
    /// leave the thread buffer) and of records too large for a thread
    /// buffer, plus the writer's batch (64 KiB plus one line; none for a
    /// wrapped sink, which gets one record at a time).
    pub fn max_bytes(mut self, bytes: usize) -> AsyncSinkBuilder {
        self.max_bytes = bytes.max(1);
        self
    }
    /// Sets what happens when the queue is full (default [`Overflow::Block`]).
    pub fn overflow(mut self, policy: Overflow) -> AsyncSinkBuilder {
        self.policy = policy;
        self
    }
    /// Sets the line format (not used for a wrapped sink).
    pub fn format(mut self, format: Format) -> AsyncSinkBuilder {
        self.format = format;
        self
    }
    /// Sets the most verbose level written (for a wrapped sink, at most the
    /// inner sink's level).
    pub fn level(mut self, level: LevelFilter) -> AsyncSinkBuilder {
        self.level = level;
        self
    }
    /// Names the sink in error reports (default: the file's path,
    /// `async sink` over a writer, `async sink (wrapped)` over a sink).
    pub fn name(mut self, name: impl Into<String>) -> AsyncSinkBuilder {
        self.name = Some(name.into());
        self
    }
    /// Bounds how long [`flush`](Sink::flush) (and so the `init` guard's
    /// drop, and dropping the sink) waits for the writer. When the time is
    /// up it reports on stderr how many records were not yet written and
    /// returns. Without it, flush waits as long as the writer needs.
    pub fn shutdown_timeout(mut self, timeout: Duration) -> AsyncSinkBuilder {
        self.shutdown_timeout = Some(timeout);
        self
    }

    /// Starts the writer thread over `writer`, any [`io::Write`]: a
    /// [`DurableFile`] (its `flush` is `sync_data`, so each batch is one
    /// fsync), a `File`, `Stdout`, a pipe. Lines are formatted straight
    /// into the writer's batch buffer.
    ///
    /// If the thread cannot be started (this holds for every output), the
    /// failure is reported once on stderr, records are counted as dropped,
    /// and neither [`Overflow::Block`] callers nor `flush` wait for it.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use elide::sink::{AsyncSink, Overflow};
    /// let sink = AsyncSink::builder()
    ///     .capacity(1024)
    ///     .overflow(Overflow::Drop)
    ///     .name("nowhere")
    ///     .build(std::io::sink());
    /// let sink = Arc::new(sink);
    /// elide::set_sinks([sink.clone() as Arc<dyn elide::Sink>]);
    /// elide::set_level(elide::LevelFilter::Info);
    /// elide::info!(n = 1, "queued");
    /// elide::flush(); // returns once the line is written
    /// let s = sink.stats();
    /// assert_eq!(s.written + s.dropped, 1);
    /// ```
    pub fn build<W: Write + Send + 'static>(self, writer: W) -> AsyncSink {
        self.start(Output::Bytes(Box::new(writer)), "async sink")
    }

    /// Appends to `path` (the file and its parent directories are created
    /// if needed): one `write` per batch, no fsync. Lines reach the OS, not
    /// necessarily the disk. The sink is named by the path.
    pub fn open(self, path: impl AsRef<Path>) -> io::Result<AsyncSink> {
        self.file(path.as_ref(), crate::sink::open_append)
    }

    /// Appends to `path` durably (created like [`open`](Self::open)): one
    /// `sync_data` per batch (group commit); [`flush`](Sink::flush) returns
    /// once everything accepted so far is on disk.
    pub fn open_durable(self, path: impl AsRef<Path>) -> io::Result<AsyncSink> {
        self.file(path.as_ref(), |p| DurableFile::open(p))
    }

    /// Starts the writer over the file `open` makes at `path`, named by it.
    fn file<W: Write + Send + 'static>(
        self,
        path: &Path,
        open: fn(&Path) -> io::Result<W>,
    ) -> io::Result<AsyncSink> {
        let file = open(path)?;
        Ok(self.start(Output::Bytes(Box::new(file)), &path.display().to_string()))
    }

    /// Hands every record to `inner` on the writer thread, so any sink (a
    /// [`FileSink`](crate::sink::FileSink), a
    /// [`ProfSink`](crate::sink::ProfSink), your own) gets the queue,
    /// the overflow policy and the accounting of this type.
    ///
    /// The writer rebuilds each record from what the caller copied: the
    /// site's metadata, level, the message, typed fields (numbers stay
    /// numbers; `Display`/`Debug` fields arrive rendered, with their kind
    /// kept), and the caller's time, thread number and thread name. Levels
    /// and telemetry follow `inner` (its [`max_level`](Sink::max_level) and
    /// [`wants_telemetry`](Sink::wants_telemetry), read now; the builder's
    /// [`level`](Self::level) can only lower the level). Records are
    /// emitted one by one on the writer thread (named `elide-writer`),
    /// oldest first, each thread's in the order it logged them, and each is
    /// counted written (or failed) as soon as `inner.emit` returns.
    /// `inner.flush()` runs on the writer once everything queued before a
    /// [`flush`](Sink::flush) call is emitted (that includes the exit
    /// flush), and when the sink is dropped, so between flushes the inner
    /// sink's own buffering applies; the writer drops its reference to
    /// `inner` when it stops. A panic of `inner.emit` is contained, counted in
    /// [`AsyncStats::failed`] and in [`stats`](crate::stats), and reported
    /// once on stderr. Dropped records are announced to `inner` as a `Warn`
    /// record `N records dropped` (field `dropped`) if it takes warnings.
    /// The builder's [`format`](Self::format) has no effect here.
    pub fn wrap(self, inner: Arc<dyn Sink>) -> AsyncSink {
        self.start(Output::Sink(inner), "async sink (wrapped)")
    }

    /// Starts the writer over `out`. What the sink takes follows from it: a
    /// wrapped sink's level caps this one's, and its wish for telemetry is
    /// this one's; bytes take no telemetry.
    fn start(self, out: Output, default_name: &str) -> AsyncSink {
        let ring_bytes = self
            .thread_buffer
            .min(self.capacity.saturating_mul(BYTES_PER_RECORD))
            .max(MIN_THREAD_BUFFER);
        let (level, telemetry) = match &out {
            Output::Sink(inner) => (self.level.min(inner.max_level()), inner.wants_telemetry()),
            Output::Bytes(_) => (self.level, false),
        };
        let name = self.name.unwrap_or_else(|| default_name.to_owned());
        let rings = RingQueue::start(
            out,
            name,
            self.format,
            self.policy,
            ring_bytes,
            self.capacity,
            self.max_bytes,
        );
        AsyncSink {
            pid: crate::os::process::pid(),
            rings,
            telemetry,
            level,
            capacity: self.capacity,
            shutdown_timeout: self.shutdown_timeout,
            closed: AtomicBool::new(false),
        }
    }
}
impl AsyncSink {
    /// Default capacity, in records (see [`AsyncSinkBuilder::capacity`]).
    pub const DEFAULT_CAPACITY: usize = DEFAULT_CAPACITY;
    /// Default bound on the bytes of records in flight (queued, not yet
    /// taken by the writer): 64 MiB. See [`AsyncSinkBuilder::max_bytes`].
    pub const DEFAULT_MAX_BYTES: usize = 64 * 1024 * 1024;
    /// Default size of each logging thread's buffer in an `AsyncSink` with
    /// its own writer (1 MiB: about 14,000 two-integer records). See
    /// [`AsyncSinkBuilder::thread_buffer`].
    pub const DEFAULT_THREAD_BUFFER: usize = 1 << 20;

    /// The builder: every option at its default (RADICAL format, all
    /// levels, [`Overflow::Block`], [`AsyncSink::DEFAULT_CAPACITY`] records,
    /// no shutdown timeout), the output given last (see
    /// [`AsyncSinkBuilder`]).
    ///
    /// ```
    /// use elide::sink::{AsyncSink, Overflow};
    /// # let dir = std::env::temp_dir().join(format!("elide-doc-builder-{}", std::process::id()));
    /// let sink = AsyncSink::builder()
    ///     .capacity(1024)
    ///     .overflow(Overflow::Drop)
    ///     .open(dir.join("app.log"))?;
    /// # drop(sink); let _ = std::fs::remove_dir_all(&dir);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn builder() -> AsyncSinkBuilder {
        AsyncSinkBuilder {
            name: None,
            format: Format::Radical,
            level: LevelFilter::Trace,
            policy: Overflow::Block,
            capacity: DEFAULT_CAPACITY,
            max_bytes: AsyncSink::DEFAULT_MAX_BYTES,
            thread_buffer: AsyncSink::DEFAULT_THREAD_BUFFER,
            shutdown_timeout: None,
        }
    }

    /// `AsyncSink::builder().open(path)`: appends to `path` with the
    /// defaults (see [`AsyncSinkBuilder::open`]).
    pub fn open(path: impl AsRef<Path>) -> io::Result<AsyncSink> {
        AsyncSink::builder().open(path)
    }

    /// `AsyncSink::builder().open_durable(path)`: appends to `path` with one
    /// `sync_data` per batch, defaults otherwise (see
    /// [`AsyncSinkBuilder::open_durable`]).
    pub fn open_durable(path: impl AsRef<Path>) -> io::Result<AsyncSink> {
        AsyncSink::builder().open_durable(path)
    }

    /// `AsyncSink::builder().wrap(inner)`: any sink behind the queue, with
    /// the defaults (see [`AsyncSinkBuilder::wrap`]).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use elide::sink::{AsyncSink, MemorySink};
    /// let mem = Arc::new(MemorySink::new());
    /// let sink = Arc::new(AsyncSink::wrap(mem.clone()));
    /// elide::set_sinks([sink as Arc<dyn elide::Sink>]);
    /// elide::set_level(elide::LevelFilter::Info);
    /// elide::info!(n = 1, "queued");
    /// elide::flush(); // returns once `mem` has the record
    /// assert_eq!(mem.messages(), ["queued"]);
    /// ```
    pub fn wrap(inner: Arc<dyn Sink>) -> AsyncSink {
        AsyncSink::builder().wrap(inner)
    }

    /// `AsyncSink::builder().build(writer)`: any [`io::Write`] with the
    /// defaults.
    pub fn new<W: Write + Send + 'static>(writer: W) -> AsyncSink {
        AsyncSink::builder().build(writer)
    }

    /// Renamed [`open`](AsyncSink::open), like every sink that opens a file.
    #[doc(hidden)]
    #[deprecated(note = "use `AsyncSink::open`")]
    pub fn file(path: impl AsRef<Path>) -> io::Result<AsyncSink> {
        AsyncSink::open(path)
    }

    /// Renamed [`open_durable`](AsyncSink::open_durable).
    #[doc(hidden)]
    #[deprecated(note = "use `AsyncSink::open_durable`")]
    pub fn durable_file(path: impl AsRef<Path>) -> io::Result<AsyncSink> {
        AsyncSink::open_durable(path)
    }

    /// The sink's counters.
    pub fn stats(&self) -> AsyncStats {
        let rings = &self.rings;
        let (written, dropped, failed) = rings.shared().counts();
        AsyncStats {
            written,
            dropped,
            failed,
            queued: rings.shared().queued(),
            queued_bytes: rings.heap_bytes(),
            max_bytes: rings.max_bytes(),
        }
    }

    /// Whether this is a forked child of the process that made the sink: no
    /// writer thread exists here to take records or answer a flush.
    fn in_forked_child(&self) -> bool {
        crate::os::process::pid() != self.pid
    }

    /// [`emit`](Sink::emit) in a forked child (no writer thread there:
    /// dropped, counted and reported), after the sink closed (dropped and
    /// counted), or where the process id is not stored.
    #[cold]
    #[inline(never)]
    fn emit_unusual(&self, record: &Record<'_>) {
        let forked = self.in_forked_child();
        if !forked && !self.closed.load(Ordering::Relaxed) {
            return self.rings.emit(record);
        }
        let shared = self.rings.shared();
        shared.dropped.fetch_add(1, Ordering::Relaxed);
        if forked {
            crate::stats::report_write_error(
                &format!("{} (in a forked child)", shared.name),
                &io::Error::other("no writer thread after fork; the record is dropped"),
            );
        }
    }

    /// The exit flush: stop taking records, let the writer write and flush
    /// what came before, then count what is left in the queue as dropped
    /// (the writer writes nothing more: a line it started as the process
    /// ends would be cut off, and one counted as written might not be).
    fn close_at_exit(&self) {
        let before = self.stats().dropped;
        self.closed.store(true, Ordering::SeqCst);
        let _ = self.rings.close(self.shutdown_timeout);
        let s = self.stats();
        let late = s.dropped - before;
        if late > 0 {
            let _ = crate::os::process::write_stderr(
                format!(
                    "elide: {}: {late} records emitted while the exit flush ran were dropped; \
                     at exit: written {}, dropped {} (with those), failed {}\n",
                    self.rings.shared().name,
                    s.written,
                    s.dropped,
                    s.failed
                )
                .as_bytes(),
            );
        }
    }
}

impl Sink for AsyncSink {
    fn max_level(&self) -> LevelFilter {
        self.level
    }
    fn wants_telemetry(&self) -> bool {
        self.telemetry
    }
    fn is_own_thread(&self) -> bool {
        on_writer()
    }
    fn emit(&self, record: &Record<'_>) {
        // The id this sink was made in is stored by then: one compare, and
        // nothing called before the push but what it needs.
        if crate::os::process::known_pid() != self.pid || self.closed.load(Ordering::Relaxed) {
            return self.emit_unusual(record);
        }
        self.rings.emit(record);
    }
    /// Waits until everything queued before the call is written (and a
    /// wrapped sink flushed). When the process is exiting (the exit
    /// handler's flush), the sink closes: records that arrive from threads
    /// still running are dropped and counted, and one line on stderr
    /// reports them, so written + dropped + failed = emitted holds at exit
    /// too.
    fn flush(&self) {
        if on_writer() || self.in_forked_child() || self.closed.load(Ordering::Relaxed) {
            return;
        }
        if crate::os::process::exiting() {
            return self.close_at_exit();
        }
        if !self.rings.flush(self.shutdown_timeout) {
            let _ = writeln!(
                io::stderr(),
                "elide: {}: flush gave up after {:?}; {} records not yet written",
                self.rings.shared().name,
                self.shutdown_timeout.unwrap_or_default(),
                self.rings.left()
            );
        }
    }
}

impl Drop for AsyncSink {
    /// Waits for the queue to drain (within the shutdown timeout, if set);
    /// the writer thread then writes what is left, flushes, and exits,
    /// dropping the wrapped sink.
    fn drop(&mut self) {
        self.flush();
        self.rings.shut_down();
    }
}
/// Metadata of the writer's own "N records dropped" line.
pub(crate) static DROPPED_META: Metadata = Metadata::new(
    Kind::Log,
    Level::Warn,
    "elide",
    module_path!(),
    file!(),
    line!(),
    "",
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sink_and_its_builder_debug_as_their_settings() {
        let builder = AsyncSink::builder()
            .name("audit")
            .capacity(128)
            .overflow(Overflow::Drop);
        let text = format!("{builder:?}");
        for part in ["AsyncSinkBuilder", "\"audit\"", "capacity: 128", "Drop"] {
            assert!(text.contains(part), "{part} in {text}");
        }
        let sink = builder.build(io::sink());
        let text = format!("{sink:?}");
        for part in [
            "AsyncSink",
            "\"audit\"",
            "capacity: 128",
            "wraps_sink: false",
        ] {
            assert!(text.contains(part), "{part} in {text}");
        }
    }

    /// Each output's call names the sink (in error reports) after what it
    /// writes to unless `name` did, and the durable one writes through to
    /// the file; the deprecated names still open the same sinks.
    #[test]
    #[allow(deprecated)]
    fn each_output_names_its_sink_and_the_old_names_still_open_files() {
        let dir = std::env::temp_dir().join(format!("elide-async-names-{}", std::process::id()));
        let (plain, durable) = (dir.join("a/plain.log"), dir.join("b/durable.log"));
        let named = |sink: &AsyncSink| sink.rings.shared().name.clone();
        let sinks = [
            AsyncSink::open(&plain).unwrap(),
            AsyncSink::open_durable(&durable).unwrap(),
            AsyncSink::builder().name("audit").open(&plain).unwrap(),
            AsyncSink::new(io::sink()),
            AsyncSink::wrap(Arc::new(crate::sink::NullSink::new())),
            AsyncSink::file(&plain).unwrap(),
            AsyncSink::durable_file(&durable).unwrap(),
        ];
        let names: Vec<String> = sinks.iter().map(named).collect();
        let (p, d) = (plain.display().to_string(), durable.display().to_string());
        assert_eq!(
            names,
            [
                &*p,
                &*d,
                "audit",
                "async sink",
                "async sink (wrapped)",
                &*p,
                &*d
            ]
        );
        assert!(!sinks[0].rings.shared().names && sinks[4].rings.shared().names);
        for (i, sink) in sinks.iter().enumerate() {
            record_into(sink, i as u64);
            sink.flush();
        }
        drop(sinks);
        let read = |p: &Path| std::fs::read_to_string(p).unwrap();
        let (plain_text, durable_text) = (read(&plain), read(&durable));
        let _ = std::fs::remove_dir_all(&dir);
        // The number each line ends with: which sinks wrote to which file.
        let numbers = |t: &str| -> Vec<String> {
            t.lines()
                .map(|l| l.rsplit(' ').next().unwrap().to_owned())
                .collect()
        };
        assert_eq!(numbers(&plain_text), ["0", "2", "5"], "{plain_text}");
        assert_eq!(numbers(&durable_text), ["1", "6"], "{durable_text}");
    }

    use crate::record::metadata::TEST_LOG as TEST_META;
    use crate::sink::until;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{mpsc, Condvar, Mutex};
    use std::time::Duration;

    fn record_into(sink: &AsyncSink, i: u64) {
        sink.emit(&Record::new(
            &TEST_META,
            Level::Info,
            format_args!("record {i}"),
            &[],
        ));
    }

    /// An inner sink that says when it is entered and waits, in `emit`,
    /// until it is opened; then counts, and keeps the messages it was given
    /// and how often it was flushed.
    #[derive(Default)]
    struct Gated {
        open: Mutex<bool>,
        opened: Condvar,
        entered: Mutex<Option<mpsc::SyncSender<()>>>,
        seen: AtomicUsize,
        messages: Mutex<Vec<String>>,
        flushes: AtomicUsize,
        /// The message of a record whose `emit` panics.
        fail: Option<&'static str>,
    }
    impl Sink for Gated {
        fn emit(&self, record: &Record<'_>) {
            let message = record.args().to_string();
            if self.fail.is_some_and(|m| message == m) {
                panic!("the inner sink fails on this record");
            }
            if let Some(tx) = self.entered.lock().unwrap().take() {
                let _ = tx.send(());
            }
            let mut open = self.open.lock().unwrap();
            while !*open {
                open = self.opened.wait(open).unwrap();
            }
            self.messages.lock().unwrap().push(message);
            self.seen.fetch_add(1, Ordering::SeqCst);
        }
        fn flush(&self) {
            self.flushes.fetch_add(1, Ordering::SeqCst);
        }
    }
    impl Gated {
        fn open(&self) {
            *self.open.lock().unwrap() = true;
            self.opened.notify_all();
        }
        fn close(&self) {
            *self.open.lock().unwrap() = false;
        }
        /// A receiver told when the next record enters `emit`.
        fn on_entry(&self) -> mpsc::Receiver<()> {
            let (tx, rx) = mpsc::sync_channel(1);
            *self.entered.lock().unwrap() = Some(tx);
            rx
        }
    }

    #[test]
    fn records_left_count_the_queue_and_the_one_in_the_writers_hands() {
        let inner = Arc::new(Gated {
            fail: Some("record 2"),
            ..Gated::default()
        });
        let rx = inner.on_entry();
        let sink = AsyncSink::wrap(inner.clone());
        for i in 0..3 {
            record_into(&sink, i);
        }
        rx.recv().unwrap(); // the writer holds the first record
        assert_eq!(sink.rings.left(), 3, "two queued, one in hand");
        inner.open();
        sink.flush();
        // Record 2 failed (its panic contained and counted): done too.
        assert_eq!((sink.stats().written, sink.stats().failed), (2, 1));
        assert_eq!(sink.rings.left(), 0);
        assert_eq!(inner.seen.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn dropping_the_sink_waits_for_what_it_queued() {
        let inner = Arc::new(Gated::default());
        let sink = AsyncSink::wrap(inner.clone());
        for i in 0..3 {
            record_into(&sink, i);
        }
        let opener = {
            let inner = Arc::clone(&inner);
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(50));
                inner.open();
            })
        };
        drop(sink);
        assert_eq!(
            inner.seen.load(Ordering::SeqCst),
            3,
            "written before drop returned"
        );
        opener.join().unwrap();
    }

    /// A flush waits for what was queued before it: under steady logging
    /// into a wrapped sink it still returns, each time.
    #[test]
    fn a_flush_under_steady_logging_returns() {
        let inner = Arc::new(Gated::default());
        inner.open();
        let sink = Arc::new(AsyncSink::wrap(inner.clone()));
        let stop = Arc::new(AtomicBool::new(false));
        let logger = {
            let (sink, stop) = (sink.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut i = 0;
                while !stop.load(Ordering::Relaxed) {
                    record_into(&sink, i);
                    i += 1;
                }
                i
            })
        };
        for _ in 0..5 {
            until("some records written", || sink.stats().written > 0);
            sink.flush();
        }
        assert_eq!(inner.flushes.load(Ordering::SeqCst), 5, "inner flushed");
        stop.store(true, Ordering::Relaxed);
        let emitted = logger.join().unwrap();
        sink.flush();
        let stats = sink.stats();
        assert_eq!((stats.written, stats.dropped), (emitted, 0), "{stats:?}");
    }

    /// `flush` flushes the wrapped sink, also with nothing queued; written
    /// records alone do not.
    #[test]
    fn a_flush_reaches_the_wrapped_sink_and_only_a_flush_does() {
        let inner = Arc::new(Gated::default());
        inner.open();
        let sink = AsyncSink::wrap(inner.clone());
        sink.flush();
        assert_eq!(inner.flushes.load(Ordering::SeqCst), 1);
        for i in 0..3 {
            record_into(&sink, i);
        }
        until("records written", || sink.stats().written == 3);
        assert_eq!(inner.flushes.load(Ordering::SeqCst), 1);
        sink.flush();
        assert_eq!(inner.flushes.load(Ordering::SeqCst), 2);
    }

    /// A sink dropped while its writer is stuck gives up waiting after the
    /// shutdown timeout; the writer still writes the backlog when it can,
    /// and then flushes the wrapped sink, so nothing stays in its buffers.
    #[test]
    fn a_backlog_left_by_a_timed_out_drop_is_written_and_flushed() {
        let inner = Arc::new(Gated::default());
        let entered = inner.on_entry();
        let sink = AsyncSink::builder()
            .capacity(2)
            .shutdown_timeout(Duration::from_millis(20))
            .wrap(inner.clone());
        record_into(&sink, 0);
        entered.recv().unwrap(); // the writer holds record 0
        record_into(&sink, 1);
        record_into(&sink, 2); // the queue is full: no room for a flush
        drop(sink);
        assert_eq!(inner.seen.load(Ordering::SeqCst), 0, "still stuck");
        inner.open();
        // The writer thread holds the other reference until it ends.
        until("the writer ends", || Arc::strong_count(&inner) == 1);
        assert_eq!(inner.seen.load(Ordering::SeqCst), 3);
        assert_eq!(inner.flushes.load(Ordering::SeqCst), 1);
    }

    /// Records dropped on a full queue are announced to the wrapped sink,
    /// each round with its own count, at warn level.
    #[test]
    fn each_round_of_drops_is_announced_with_its_own_count() {
        let inner = Arc::new(Gated::default());
        let sink = AsyncSink::builder()
            .capacity(2)
            .overflow(Overflow::Drop)
            .wrap(inner.clone());
        let mut i = 0;
        for dropped in [2, 3] {
            inner.close();
            let entered = inner.on_entry();
            record_into(&sink, i);
            entered.recv().unwrap(); // the writer holds it
                                     // The thread's buffer fills, then records are dropped.
            let before = sink.stats().dropped;
            while sink.stats().dropped < before + dropped {
                i += 1;
                record_into(&sink, i);
            }
            i += 1;
            inner.open();
            sink.flush();
        }
        let stats = sink.stats();
        assert_eq!(stats.dropped, 5);
        assert_eq!(stats.written + stats.dropped, i, "{stats:?}");
        let messages = inner.messages.lock().unwrap();
        let notices: Vec<&str> = messages
            .iter()
            .filter(|m| m.contains("dropped"))
            .map(String::as_str)
            .collect();
        assert_eq!(notices, ["2 records dropped", "3 records dropped"]);
        assert_eq!(messages.len() as u64, stats.written + 2, "and two notices");
        assert!(
            !sink.rings.shared().panic_reported.load(Ordering::Relaxed),
            "a notice written is not reported as a panic"
        );
    }

    #[test]
    fn a_wrapping_sink_wants_telemetry_when_its_inner_sink_does() {
        struct Telemetry;
        impl Sink for Telemetry {
            fn wants_telemetry(&self) -> bool {
                true
            }
            fn emit(&self, _: &Record<'_>) {}
        }
        assert!(AsyncSink::wrap(Arc::new(Telemetry)).wants_telemetry());
        assert!(!AsyncSink::wrap(Arc::new(Gated::default())).wants_telemetry());
    }

    #[test]
    fn a_blocking_sink_waits_for_bytes_instead_of_dropping_and_gives_them_all_back() {
        let inner = Arc::new(Gated::default());
        inner.open();
        // Room for one long record at a time: callers wait for the writer.
        let sink = AsyncSink::builder().max_bytes(1).wrap(inner.clone());
        let long = "l".repeat(300);
        for i in 0..50 {
            sink.emit(&Record::new(
                &TEST_META,
                Level::Info,
                format_args!("{long} {i}"),
                &[],
            ));
        }
        sink.flush();
        assert_eq!(inner.seen.load(Ordering::SeqCst), 50);
        let stats = sink.stats();
        assert_eq!((stats.dropped, stats.queued_bytes), (0, 0), "{stats:?}");
    }

    #[test]
    fn the_documented_defaults() {
        assert_eq!(AsyncSink::DEFAULT_MAX_BYTES, 64 << 20, "64 MiB in flight");
        assert_eq!(
            AsyncSink::DEFAULT_THREAD_BUFFER,
            1 << 20,
            "1 MiB per thread"
        );
    }

    /// What the writer was given, readable after the sink is flushed.
    #[derive(Clone, Default)]
    struct Collected(Arc<std::sync::Mutex<Vec<u8>>>);
    impl Write for Collected {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_thread_buffer_asked_too_small_still_takes_a_large_record() {
        const NAMES: [&str; 64] = {
            let mut n = ["f"; 64];
            n[63] = "last";
            n
        };
        let out = Collected::default();
        let sink = AsyncSink::builder().thread_buffer(1).build(out.clone());
        let big = "x".repeat(30 * 1024);
        // A long text and 64 fields: several hundred words of buffer.
        let fields: Vec<crate::record::value::Field<'_>> = NAMES
            .iter()
            .map(|n| (*n, crate::record::value::Value::U64(7)))
            .collect();
        sink.emit(&Record::new(
            &TEST_META,
            Level::Info,
            format_args!("{big}"),
            &fields,
        ));
        sink.flush();
        let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        assert!(text.contains(&big), "{} bytes written", text.len());
        assert!(text.contains("last=7"), "{} bytes written", text.len());
        assert_eq!(sink.stats().dropped, 0);
    }
}
