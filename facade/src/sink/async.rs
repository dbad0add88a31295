//! The async sink: callers capture a record and queue it; a background
//! thread formats queued records, writes them in batches and flushes once
//! per batch, or (for [`AsyncSink::wrap`]) rebuilds each record and hands it
//! to any other [`Sink`].
//!
//! # Guarantees
//! - **Nothing lost under [`Overflow::Block`]**: a full queue makes the
//!   caller wait for room. Every accepted record is written (or, if the
//!   writer fails, counted in [`AsyncStats::failed`] and reported).
//! - **Exact accounting under [`Overflow::Drop`]**: a full queue drops the
//!   new record and counts it; written + dropped + failed = emitted. The
//!   writer also puts a line `N records dropped` into the output itself.
//! - **[`flush`](Sink::flush) waits** until everything accepted before the
//!   call is written and the writer flushed (for a
//!   [`DurableFile`](crate::sink::DurableFile): on disk). The
//!   [`init`](crate::init) guard's drop calls it, with no time limit unless
//!   [`with_shutdown_timeout`](AsyncSink::with_shutdown_timeout) set one.
//! - **Writer errors never reach the caller**: a failing `write`/`flush`
//!   (disk full, closed pipe) or even a panicking writer is counted, reported
//!   once on stderr via [`report_write_error`](crate::report_write_error),
//!   and the writer goes on with the next batch, so callers are never stuck
//!   behind a dead writer.
//!
//! # Per-thread buffers
//! The form with its own writer ([`new`](AsyncSink::new), `file`,
//! `durable_file`, [`builder`](AsyncSink::builder)) does not use the
//! channel described below: each logging thread copies its records, raw
//! arguments where the site offers them, into a single-producer ring of
//! its own, and the writer drains the rings oldest record first (see
//! `async_rings.rs`; the guarantees above hold the same). The rest of this
//! section describes the wrapped form.
//!
//! # Where formatting happens
//! On the writer. The caller captures what borrows its data or changes
//! with time: it renders the message and any `Display`/`Debug` field into
//! a text buffer, copies typed fields, and reads the clock and its thread
//! number; the writer does the layout (time formatting, pid, level,
//! escaping) straight into its batch buffer. Buffers come from a pool the
//! writer refills (a second bounded channel), so in steady state no record
//! allocates. The pool is filled up front
//! ([`with_preallocated`](AsyncSink::with_preallocated)): fresh buffers
//! page-fault, which a burst would otherwise pay on the caller's thread.
//!
//! Measured here (README, Sinks), formatting a RADICAL line costs the
//! caller about 0.55 us (mostly the float time format; the pid is cached),
//! capturing about 0.07 us. The price: `Display`/`Debug` of fields still
//! run on the caller (they borrow its data), the line appears a little
//! later, and a custom [`Format`] runs on the writer thread. The output is
//! byte for byte what a synchronous sink writes: same time, same thread
//! number.
//!
//! # Batching (group commit)
//! The writer blocks for the first queued message, then takes whatever
//! else is queued (up to the queue capacity), appends the lines to one
//! buffer, writes it (in 64 KiB pieces) and calls `flush` once. With a
//! [`DurableFile`](crate::sink::DurableFile) that is one `sync_data` per
//! batch, so durable throughput is batch size x fsync rate, while callers
//! only ever wait for a queue slot.
//!
//! Statics owned here: `ON_WRITER` (set on writer threads) and the
//! metadata of the writer's own "records dropped" line.

use std::cell::Cell;
use std::io::{self, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::{bounded, Receiver, RecvTimeoutError, Sender};

use crate::format::Format;
use crate::metadata::{Kind, Metadata};
use crate::record::Record;
use crate::sink::async_rings::RingQueue;
use crate::sink::captured::{Captured, Scratch, Store};
use crate::sink::{DurableFile, Sink};
use crate::value::Value;
use crate::{Level, LevelFilter};

/// What a caller does when the queue is full.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Overflow {
    /// Wait for room: nothing is lost; a slow disk slows the caller.
    #[default]
    Block,
    /// Drop the new record and count it: the caller never waits.
    Drop,
}

/// Default queue capacity, in records.
pub const DEFAULT_CAPACITY: usize = 65_536;

/// Default number of record buffers allocated up front (about 2.7 MiB per
/// 16,384). Half the default capacity: a 50,000-record burst into a
/// durable file keeps up to about 32,000 records in flight on a 2-core
/// machine, and a caller that finds the pool empty allocates, and every
/// few records page-faults, which is what a p99 of 2 us cannot afford.
pub const DEFAULT_PREALLOCATED: usize = 32_768;

/// Default size of each logging thread's buffer in an [`AsyncSink`] with
/// its own writer (1 MiB: about 14,000 two-integer records).
pub const DEFAULT_THREAD_BUFFER: usize = 1 << 20;

/// The smallest thread buffer: room for any record of a site (a record
/// larger than half a buffer is dropped and reported).
const MIN_THREAD_BUFFER: usize = 64 * 1024;

/// Bytes per record assumed when a capacity in records bounds a thread
/// buffer.
const BYTES_PER_RECORD: usize = 64;

/// Bytes gathered before they are handed to the writer, within one batch.
const CHUNK: usize = 64 * 1024;

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
}

enum Msg {
    Record(Captured),
    /// Answer on the sender once everything queued before is flushed.
    Flush(Sender<()>),
}

/// State shared by the callers and the writer thread.
struct Shared {
    /// The sink's name in error reports.
    name: String,
    dropped: AtomicU64,
    written: AtomicU64,
    failed: AtomicU64,
    /// Lines the writer took from the queue (written, failed or in its hands).
    taken: AtomicU64,
    /// Whether a panic of the wrapped sink was reported on stderr.
    panic_reported: AtomicBool,
}

/// Where the writer puts records.
enum Output {
    /// Formatted lines, written in batches, flushed once per batch.
    Bytes(Box<dyn Write + Send>),
    /// A wrapped sink: each record is rebuilt and emitted; flushed when a
    /// flush is requested.
    Sink(Arc<dyn Sink>),
}

thread_local! {
    /// Set on writer threads: they never block on a queue (a writer that
    /// logs into a full queue would wait for itself) and never flush.
    static ON_WRITER: Cell<bool> = const { Cell::new(false) };
}

/// Marks this thread as a writer: a wrapped sink or writer that logs must
/// not feed its own queue, so dispatch drops (and counts) records emitted
/// on this thread.
pub(crate) fn enter_writer() {
    ON_WRITER.with(|w| w.set(true));
}

/// Whether this thread is an async sink's writer.
pub(crate) fn on_writer() -> bool {
    ON_WRITER.try_with(Cell::get).unwrap_or(false)
}

/// A sink that queues records for a background writer thread, which
/// formats and writes them in batches ([`new`](AsyncSink::new)), or hands
/// them to another sink ([`wrap`](AsyncSink::wrap)).
///
/// The writer of [`new`](AsyncSink::new) is any [`io::Write`]: a
/// [`DurableFile`] (its `flush` is `sync_data`, so each batch is one
/// fsync), a `File`, `Stdout`, a pipe. That path is the fast one: lines are
/// formatted straight into the batch buffer.
///
/// Configure it with its [builder](AsyncSink::builder), which starts the
/// writer thread in [`build`](AsyncSinkBuilder::build); the constructors
/// `new`, `wrap`, `file` and `durable_file` build with the defaults.
///
/// ```
/// use std::sync::Arc;
/// use elide::sink::{AsyncSink, Overflow};
/// let sink = AsyncSink::builder(std::io::sink())
///     .capacity(1024)
///     .overflow(Overflow::Drop)
///     .name("nowhere")
///     .build();
/// let sink = Arc::new(sink);
/// elide::set_sinks([sink.clone() as Arc<dyn elide::Sink>]);
/// elide::set_level(elide::LevelFilter::Info);
/// elide::info!(n = 1, "queued");
/// elide::flush(); // returns once the line is written
/// let s = sink.stats();
/// assert_eq!(s.written + s.dropped, 1);
/// ```
pub struct AsyncSink {
    /// The process whose writer thread drains the queue: a forked child
    /// has no writer, so it must neither queue nor wait for one.
    pid: u32,
    /// The per-thread buffers of the form with its own writer; `None` for
    /// a wrapped sink, which uses the channel.
    rings: Option<RingQueue>,
    tx: Sender<Msg>,
    /// Whether records carry the thread's name (a wrapped sink may print it).
    wrapped: bool,
    telemetry: bool,
    pool_rx: Receiver<Store>,
    /// For the buffers of records dropped on a full queue.
    pool_tx: Sender<Store>,
    shared: Arc<Shared>,
    level: LevelFilter,
    policy: Overflow,
    capacity: usize,
    shutdown_timeout: Option<Duration>,
}

impl std::fmt::Debug for AsyncSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AsyncSink")
            .field("name", &self.shared.name)
            .field("level", &self.level)
            .field("policy", &self.policy)
            .field("capacity", &self.capacity)
            .field("shutdown_timeout", &self.shutdown_timeout)
            .field("wraps_sink", &self.wrapped)
            .field("telemetry", &self.telemetry)
            .finish_non_exhaustive()
    }
}

/// The configuration of an [`AsyncSink`]; [`build`](AsyncSinkBuilder::build)
/// starts the writer thread. Made by [`AsyncSink::builder`],
/// [`AsyncSink::wrapping`], [`AsyncSink::file_builder`] or
/// [`AsyncSink::durable_file_builder`].
pub struct AsyncSinkBuilder {
    out: Output,
    name: String,
    format: Format,
    level: LevelFilter,
    /// The wrapped sink's level: the most the sink may take.
    level_cap: LevelFilter,
    telemetry: bool,
    policy: Overflow,
    capacity: usize,
    preallocated: usize,
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
            .field("preallocated", &self.preallocated)
            .field("shutdown_timeout", &self.shutdown_timeout)
            .finish_non_exhaustive()
    }
}

impl AsyncSinkBuilder {
    fn new(out: Output, name: String) -> AsyncSinkBuilder {
        AsyncSinkBuilder {
            out,
            name,
            format: Format::Radical,
            level: LevelFilter::Trace,
            level_cap: LevelFilter::Trace,
            telemetry: false,
            policy: Overflow::Block,
            capacity: DEFAULT_CAPACITY,
            preallocated: DEFAULT_PREALLOCATED,
            thread_buffer: DEFAULT_THREAD_BUFFER,
            shutdown_timeout: None,
        }
    }

    /// Sets the size in bytes of each logging thread's buffer (default
    /// [`DEFAULT_THREAD_BUFFER`], at least 64 KiB; not used for a wrapped
    /// sink). With its own writer, an `AsyncSink` gives every thread that
    /// logs into it a buffer of its own, allocated (and its pages touched)
    /// on the thread's first record; the [`capacity`](Self::capacity) in
    /// records bounds it too, at 64 bytes a record. A full buffer blocks or
    /// drops per the [`overflow`](Self::overflow) policy.
    pub fn thread_buffer(mut self, bytes: usize) -> AsyncSinkBuilder {
        self.thread_buffer = bytes;
        self
    }

    /// Sets the queue capacity in records (at least 1; default
    /// [`DEFAULT_CAPACITY`]).
    pub fn capacity(mut self, capacity: usize) -> AsyncSinkBuilder {
        self.capacity = capacity.max(1);
        self
    }
    /// Sets how many record buffers are allocated up front (default
    /// [`DEFAULT_PREALLOCATED`], at most the capacity; about 170 bytes
    /// each). A burst of more records in flight than this allocates (and
    /// page-faults) on the callers' threads until the pool has grown;
    /// after that, no record allocates.
    pub fn preallocated(mut self, buffers: usize) -> AsyncSinkBuilder {
        self.preallocated = buffers;
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
    /// Names the sink in error reports (e.g. the file path).
    pub fn name(mut self, name: impl Into<String>) -> AsyncSinkBuilder {
        self.name = name.into();
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

    /// Allocates the queue and the buffer pool and starts the writer
    /// thread. If the thread cannot be started, records are counted as
    /// dropped.
    pub fn build(self) -> AsyncSink {
        if matches!(self.out, Output::Bytes(_)) {
            return self.build_rings();
        }
        let (tx, rx) = bounded(self.capacity);
        let (pool_tx, pool_rx) = bounded(self.capacity);
        for _ in 0..self.preallocated.min(self.capacity) {
            let _ = pool_tx.try_send(Store::sized());
        }
        let wrapped = matches!(self.out, Output::Sink(_));
        let shared = Arc::new(Shared {
            name: self.name,
            dropped: AtomicU64::new(0),
            written: AtomicU64::new(0),
            failed: AtomicU64::new(0),
            taken: AtomicU64::new(0),
            panic_reported: AtomicBool::new(false),
        });
        let writer = Writer {
            out: self.out,
            rx,
            pool: pool_tx.clone(),
            shared: shared.clone(),
            batch: String::new(),
            format: self.format,
            batch_lines: 0,
            unflushed_lines: 0,
            reported_drops: 0,
            max_batch: self.capacity,
        };
        let spawned = std::thread::Builder::new()
            .name("elide-writer".to_owned())
            .spawn(move || writer.run());
        if let Err(e) = spawned {
            crate::report_write_error(&format!("{} (writer thread)", shared.name), &e);
        }
        AsyncSink {
            pid: crate::process::pid(),
            rings: None,
            tx,
            wrapped,
            telemetry: self.telemetry,
            pool_rx,
            pool_tx,
            shared,
            level: self.level.min(self.level_cap),
            policy: self.policy,
            capacity: self.capacity,
            shutdown_timeout: self.shutdown_timeout,
        }
    }
}

impl AsyncSinkBuilder {
    /// The form with its own writer: per-thread buffers, no channel.
    fn build_rings(self) -> AsyncSink {
        let Output::Bytes(out) = self.out else {
            unreachable!("called for the byte form only")
        };
        let ring_bytes = self
            .thread_buffer
            .min(self.capacity.saturating_mul(BYTES_PER_RECORD))
            .max(MIN_THREAD_BUFFER);
        let rings = RingQueue::start(
            out,
            self.name.clone(),
            self.format,
            self.policy,
            ring_bytes,
            self.capacity,
        );
        // The channel is unused in this form: the smallest one, no pool.
        let (tx, _) = bounded(1);
        let (pool_tx, pool_rx) = bounded(1);
        AsyncSink {
            pid: crate::process::pid(),
            rings: Some(rings),
            tx,
            wrapped: false,
            telemetry: self.telemetry,
            pool_rx,
            pool_tx,
            shared: Arc::new(Shared {
                name: self.name,
                dropped: AtomicU64::new(0),
                written: AtomicU64::new(0),
                failed: AtomicU64::new(0),
                taken: AtomicU64::new(0),
                panic_reported: AtomicBool::new(false),
            }),
            level: self.level.min(self.level_cap),
            policy: self.policy,
            capacity: self.capacity,
            shutdown_timeout: self.shutdown_timeout,
        }
    }
}

impl AsyncSink {
    /// A builder over `writer`: RADICAL format, all levels,
    /// [`Overflow::Block`], [`DEFAULT_CAPACITY`] records, no shutdown
    /// timeout until set.
    pub fn builder<W: Write + Send + 'static>(writer: W) -> AsyncSinkBuilder {
        AsyncSinkBuilder::new(Output::Bytes(Box::new(writer)), "async sink".to_owned())
    }

    /// `AsyncSink::builder(writer).build()`: starts a writer thread over
    /// `writer` with the defaults.
    pub fn new<W: Write + Send + 'static>(writer: W) -> AsyncSink {
        AsyncSink::builder(writer).build()
    }

    /// A builder whose writer thread hands every record to `inner`, so any
    /// sink (a [`FileSink`](crate::sink::FileSink), a
    /// [`ProfSink`](crate::telemetry::ProfSink), your own) gets the queue,
    /// the overflow policy and the accounting of this type.
    ///
    /// The writer rebuilds each record from what the caller captured: the
    /// site's metadata, level, the rendered message, typed fields (numbers
    /// stay numbers; `Display`/`Debug` fields arrive rendered, with their
    /// kind kept), and the caller's time, thread number and thread name.
    /// Levels and telemetry follow `inner` (its
    /// [`max_level`](Sink::max_level) and
    /// [`wants_telemetry`](Sink::wants_telemetry), read now). Records are
    /// emitted one by one in queue order; `inner.flush()` runs on the writer
    /// after the queue has drained up to a [`flush`](Sink::flush) call (and
    /// when the sink is dropped), so between flushes the inner sink's own
    /// buffering applies. A panic of `inner.emit` is contained, counted in
    /// [`AsyncStats::failed`] and in [`stats`](crate::stats), and reported
    /// once on stderr. Dropped records are announced to `inner` as a `Warn`
    /// record `N records dropped` (field `dropped`) if it takes warnings.
    /// The builder's [`format`](AsyncSinkBuilder::format) has no effect here.
    pub fn wrapping(inner: Arc<dyn Sink>) -> AsyncSinkBuilder {
        let mut b = AsyncSinkBuilder::new(
            Output::Sink(inner.clone()),
            "async sink (wrapped)".to_owned(),
        );
        b.level_cap = inner.max_level();
        b.telemetry = inner.wants_telemetry();
        b
    }

    /// `AsyncSink::wrapping(inner).build()`: see [`wrapping`](AsyncSink::wrapping).
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
        AsyncSink::wrapping(inner).build()
    }

    /// A builder appending to `path` (the file and its parent directories
    /// are created if needed): one `write` per batch, no fsync. Lines reach
    /// the OS, not necessarily the disk.
    pub fn file_builder(path: impl AsRef<Path>) -> io::Result<AsyncSinkBuilder> {
        let path = path.as_ref();
        let file = crate::sink::open_append(path)?;
        Ok(AsyncSink::builder(file).name(path.display().to_string()))
    }

    /// `AsyncSink::file_builder(path)?.build()`.
    pub fn file(path: impl AsRef<Path>) -> io::Result<AsyncSink> {
        Ok(AsyncSink::file_builder(path)?.build())
    }

    /// A builder appending to `path` durably (created like
    /// [`file_builder`](AsyncSink::file_builder)): one `sync_data` per batch
    /// (group commit); [`flush`](Sink::flush) returns once everything
    /// accepted so far is on disk.
    pub fn durable_file_builder(path: impl AsRef<Path>) -> io::Result<AsyncSinkBuilder> {
        let path = path.as_ref();
        Ok(AsyncSink::builder(DurableFile::open(path)?).name(path.display().to_string()))
    }

    /// `AsyncSink::durable_file_builder(path)?.build()`.
    pub fn durable_file(path: impl AsRef<Path>) -> io::Result<AsyncSink> {
        Ok(AsyncSink::durable_file_builder(path)?.build())
    }

    /// The sink's counters.
    pub fn stats(&self) -> AsyncStats {
        if let Some(rings) = &self.rings {
            let (written, dropped, failed) = rings.shared().counts();
            return AsyncStats {
                written,
                dropped,
                failed,
                queued: rings.shared().queued(),
            };
        }
        AsyncStats {
            written: self.shared.written.load(Ordering::Relaxed),
            dropped: self.shared.dropped.load(Ordering::Relaxed),
            failed: self.shared.failed.load(Ordering::Relaxed),
            queued: self.tx.len() as u64,
        }
    }

    fn enqueue(&self, record: Captured) {
        let msg = Msg::Record(record);
        let refused = if self.policy == Overflow::Block && !on_writer() {
            self.tx.send(msg).err().map(|e| e.into_inner())
        } else {
            self.tx.try_send(msg).err().map(|e| e.into_inner())
        };
        if let Some(Msg::Record(record)) = refused {
            self.shared.dropped.fetch_add(1, Ordering::Relaxed);
            if let Some(store) = record.into_store().recycle() {
                let _ = self.pool_tx.try_send(store);
            }
        }
    }

    /// Whether this is a forked child of the process that made the sink: no
    /// writer thread exists here to take records or answer a flush.
    fn in_forked_child(&self) -> bool {
        crate::process::pid() != self.pid
    }

    /// A record emitted in a forked child: counted as dropped and reported.
    #[cold]
    fn drop_in_child(&self) {
        match &self.rings {
            Some(r) => r.shared().dropped.fetch_add(1, Ordering::Relaxed),
            None => self.shared.dropped.fetch_add(1, Ordering::Relaxed),
        };
        crate::report_write_error(
            &format!("{} (in a forked child)", self.shared.name),
            &io::Error::other("no writer thread after fork; the record is dropped"),
        );
    }

    /// Records accepted but not yet written (approximate while callers run).
    fn left(&self) -> u64 {
        if let Some(rings) = &self.rings {
            return rings.left();
        }
        let taken = self.shared.taken.load(Ordering::Relaxed);
        let done = self.shared.written.load(Ordering::Relaxed)
            + self.shared.failed.load(Ordering::Relaxed);
        self.tx.len() as u64 + taken.saturating_sub(done)
    }

    fn report_timeout(&self, timeout: Duration) {
        let name = &self.shared.name;
        let _ = writeln!(
            io::stderr(),
            "elide: {name}: flush gave up after {timeout:?}; {} records not yet written",
            self.left()
        );
    }
}

impl Sink for AsyncSink {
    fn max_level(&self) -> LevelFilter {
        self.level
    }
    fn wants_telemetry(&self) -> bool {
        self.telemetry
    }
    fn emit(&self, record: &Record<'_>) {
        if self.in_forked_child() {
            return self.drop_in_child();
        }
        if let Some(rings) = &self.rings {
            return rings.emit(record);
        }
        // The writer empties stores before returning them to the pool.
        // An empty pool (a burst larger than the preallocation) allocates
        // here, sized like a pooled store so the record need not regrow it.
        let store = self.pool_rx.try_recv().unwrap_or_else(|_| Store::sized());
        self.enqueue(Captured::capture(record, store, self.wrapped));
    }
    fn flush(&self) {
        if on_writer() || self.in_forked_child() {
            return;
        }
        if let Some(rings) = &self.rings {
            if !rings.flush(self.shutdown_timeout) {
                if let Some(timeout) = self.shutdown_timeout {
                    self.report_timeout(timeout);
                }
            }
            return;
        }
        let (ack_tx, ack_rx) = bounded(1);
        let msg = Msg::Flush(ack_tx);
        let Some(timeout) = self.shutdown_timeout else {
            // Err means the writer thread is gone: nothing left to wait for.
            if self.tx.send(msg).is_ok() {
                let _ = ack_rx.recv();
            }
            return;
        };
        let start = Instant::now();
        if self.tx.send_timeout(msg, timeout).is_err() {
            if !self.tx.is_empty() {
                self.report_timeout(timeout);
            }
            return;
        }
        let rest = timeout.saturating_sub(start.elapsed());
        if let Err(RecvTimeoutError::Timeout) = ack_rx.recv_timeout(rest) {
            self.report_timeout(timeout);
        }
    }
}

impl Drop for AsyncSink {
    /// Waits for the queue to drain (within the shutdown timeout, if set);
    /// the writer thread then sees the queue closed and exits.
    fn drop(&mut self) {
        self.flush();
        if let Some(rings) = &self.rings {
            rings.shut_down();
        }
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

struct Writer {
    out: Output,
    rx: Receiver<Msg>,
    pool: Sender<Store>,
    shared: Arc<Shared>,
    /// Formatted lines of the batch not yet handed to `out`.
    batch: String,
    /// The line format.
    format: Format,
    /// Records in `batch`.
    batch_lines: u64,
    /// Records handed to `out` but not yet flushed.
    unflushed_lines: u64,
    /// Drops already announced in the output.
    reported_drops: u64,
    /// Most messages taken into one batch, so a busy queue still commits.
    max_batch: usize,
}

impl Writer {
    fn run(mut self) {
        enter_writer();
        let mut acks: Vec<Sender<()>> = Vec::new();
        // Made here: its lists hold borrowed values, so it never crosses threads.
        let mut scratch = Scratch::default();
        while let Ok(mut msg) = self.rx.recv() {
            let mut taken = 0;
            loop {
                taken += 1;
                match msg {
                    Msg::Record(record) => self.take_record(record, &mut scratch),
                    Msg::Flush(ack) => acks.push(ack),
                }
                // A flush request ends the batch, so flush waits one commit.
                if !acks.is_empty() || taken >= self.max_batch {
                    break;
                }
                match self.rx.try_recv() {
                    Ok(next) => msg = next,
                    Err(_) => break,
                }
            }
            self.commit();
            if !acks.is_empty() {
                self.flush_inner();
            }
            for ack in acks.drain(..) {
                let _ = ack.send(());
            }
        }
        self.commit();
        self.flush_inner();
    }

    fn take_record(&mut self, record: Captured, scratch: &mut Scratch) {
        self.shared.taken.fetch_add(1, Ordering::Relaxed);
        let store = match &self.out {
            Output::Bytes(_) => {
                let store = record.write(self.format, &mut self.batch, scratch);
                self.batch_lines += 1;
                store
            }
            Output::Sink(inner) => {
                let mut emitted = false;
                let store = record.replay(scratch, |r| emitted = emit_contained(&**inner, r));
                if emitted {
                    self.shared.written.fetch_add(1, Ordering::Relaxed);
                } else {
                    self.shared.failed.fetch_add(1, Ordering::Relaxed);
                    self.report_panic("emit");
                }
                store
            }
        };
        if let Some(store) = store.recycle() {
            let _ = self.pool.try_send(store);
        }
        if self.batch.len() >= CHUNK {
            self.write_batch();
        }
    }

    /// Reports the first panic of the wrapped sink on stderr (the panic is
    /// already counted where it was contained).
    fn report_panic(&self, what: &str) {
        if !self.shared.panic_reported.swap(true, Ordering::Relaxed) {
            let name = &self.shared.name;
            let _ = writeln!(
                io::stderr(),
                "elide: {name}: the wrapped sink panicked in {what}; the record is counted as \
                 failed (further panics are counted in elide::stats())"
            );
        }
    }

    /// Flushes a wrapped sink (a byte writer is flushed by every commit).
    fn flush_inner(&self) {
        if let Output::Sink(inner) = &self.out {
            if catch_unwind(AssertUnwindSafe(|| inner.flush())).is_err() {
                crate::stats::SINK_PANICS.fetch_add(1, Ordering::Relaxed);
                self.report_panic("flush");
            }
        }
    }

    fn fail(&self, lines: u64, err: &io::Error) {
        self.shared.failed.fetch_add(lines, Ordering::Relaxed);
        crate::report_write_error(&self.shared.name, err);
    }

    /// Hands the batch to `out` (no flush).
    fn write_batch(&mut self) {
        let Output::Bytes(out) = &mut self.out else {
            return;
        };
        if self.batch.is_empty() {
            return;
        }
        let res = catch_unwind(AssertUnwindSafe(|| out.write_all(self.batch.as_bytes())))
            .unwrap_or_else(|_| Err(io::Error::other("the writer panicked")));
        match res {
            Ok(()) => self.unflushed_lines += self.batch_lines,
            Err(e) => self.fail(self.batch_lines, &e),
        }
        self.batch.clear();
        self.batch_lines = 0;
    }

    /// Ends a batch: announces new drops, writes, and flushes once (a
    /// wrapped sink only gets the announcement).
    fn commit(&mut self) {
        let dropped = self.shared.dropped.load(Ordering::Relaxed);
        if dropped > self.reported_drops {
            let n = dropped - self.reported_drops;
            self.reported_drops = dropped;
            let fields = [("dropped", Value::U64(n))];
            let notice = |args| Record::new(&DROPPED_META, Level::Warn, args, &fields);
            match &self.out {
                Output::Bytes(_) => self.format.write(
                    &notice(format_args!("{n} records dropped")),
                    &mut self.batch,
                ),
                Output::Sink(inner) => {
                    if Level::Warn <= inner.max_level()
                        && !emit_contained(&**inner, &notice(format_args!("{n} records dropped")))
                    {
                        self.report_panic("emit");
                    }
                }
            }
        }
        self.write_batch();
        let Output::Bytes(out) = &mut self.out else {
            return;
        };
        let res = catch_unwind(AssertUnwindSafe(|| out.flush()))
            .unwrap_or_else(|_| Err(io::Error::other("the writer panicked")));
        match res {
            Ok(()) => {
                self.shared
                    .written
                    .fetch_add(self.unflushed_lines, Ordering::Relaxed);
            }
            Err(e) => self.fail(self.unflushed_lines, &e),
        }
        self.unflushed_lines = 0;
    }
}

/// Calls the wrapped sink, containing a panic (counted in
/// [`stats`](crate::stats)). Whether `emit` returned normally.
fn emit_contained(sink: &dyn Sink, record: &Record<'_>) -> bool {
    let ok = catch_unwind(AssertUnwindSafe(|| sink.emit(record))).is_ok();
    if !ok {
        crate::stats::SINK_PANICS.fetch_add(1, Ordering::Relaxed);
    }
    ok
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pool_follows_the_builder() {
        let inner = || Arc::new(crate::sink::NullSink::new()) as Arc<dyn Sink>;
        let sink = AsyncSink::wrapping(inner()).capacity(64).build();
        assert_eq!(sink.pool_rx.len(), 64, "filled up to the capacity");
        let sink = AsyncSink::wrapping(inner())
            .capacity(64)
            .preallocated(8)
            .build();
        assert_eq!(sink.pool_rx.len(), 8);
        let sink = AsyncSink::wrapping(inner()).preallocated(0).build();
        assert_eq!(sink.pool_rx.len(), 0);
    }
}
