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
//! - **Memory bounded in bytes**: beyond the sink's fixed buffers, queued
//!   records hold at most [`max_bytes`](AsyncSinkBuilder::max_bytes)
//!   (default [`DEFAULT_MAX_BYTES`], 64 MiB); a record over the budget is
//!   treated like one that finds its buffer full (`Block` waits, `Drop`
//!   drops and counts). See `max_bytes` for the worst case of each form.
//! - **A failed write tears no later record**: the rest of a line a write
//!   left half done is written first by the next write, so the output
//!   holds only whole lines (see `whole_lines`).
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
//! Measured here (BENCHMARKS.md, sinks), formatting a RADICAL line costs the
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
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use crossbeam_channel::{
    bounded, Receiver, RecvTimeoutError, SendTimeoutError, Sender, TrySendError,
};

use crate::contain::contained;
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

/// Default bound on the bytes of records in flight (queued, not yet taken
/// by the writer): 64 MiB. See [`AsyncSinkBuilder::max_bytes`].
pub const DEFAULT_MAX_BYTES: usize = 64 * 1024 * 1024;

/// Default size of each logging thread's buffer in an [`AsyncSink`] with
/// its own writer (1 MiB: about 14,000 two-integer records).
pub const DEFAULT_THREAD_BUFFER: usize = 1 << 20;

/// The smallest thread buffer: room for the records of most sites (one
/// larger than half a buffer is queued in a heap block of its own).
const MIN_THREAD_BUFFER: usize = 64 * 1024;

/// Bytes per record assumed when a capacity in records bounds a thread
/// buffer.
const BYTES_PER_RECORD: usize = 64;

/// How often a caller waiting on the wrapped form's writer (for room in the
/// queue, or for a flush) checks that the writer thread is still there.
const WRITER_CHECK: Duration = Duration::from_millis(100);

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

enum Msg {
    Record(Captured),
    /// Answer on the sender once everything queued before is flushed.
    Flush(Sender<()>),
    /// Like `Flush`, then drop (and count) everything after: the process
    /// is exiting, and a record written after the answer might be cut off
    /// half-way, or counted as written and never reach its destination.
    Close(Sender<()>),
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
    /// Bytes of the queued records, bounded by `max_bytes`.
    queued_bytes: AtomicUsize,
    max_bytes: usize,
    /// Bytes held by the pool's stores, bounded by `max_pooled`.
    pooled_bytes: AtomicUsize,
    max_pooled: usize,
    /// Callers waiting for bytes ([`Overflow::Block`]): the writer wakes
    /// them through `room` only when there are any.
    byte_waiters: AtomicUsize,
    room: Mutex<()>,
    room_freed: Condvar,
    /// Set when the writer thread ends (or never started): nobody takes
    /// records or frees bytes any more.
    writer_gone: AtomicBool,
    /// Set by the exit flush, or when the writer thread ends: records are
    /// dropped and counted from now on.
    closed: AtomicBool,
}

impl Shared {
    fn new(name: String, max_bytes: usize) -> Shared {
        Shared {
            name,
            dropped: AtomicU64::new(0),
            written: AtomicU64::new(0),
            failed: AtomicU64::new(0),
            taken: AtomicU64::new(0),
            panic_reported: AtomicBool::new(false),
            queued_bytes: AtomicUsize::new(0),
            max_bytes,
            pooled_bytes: AtomicUsize::new(0),
            max_pooled: max_bytes / 4,
            byte_waiters: AtomicUsize::new(0),
            room: Mutex::new(()),
            room_freed: Condvar::new(),
            writer_gone: AtomicBool::new(false),
            closed: AtomicBool::new(false),
        }
    }

    /// Takes `size` bytes of the budget if they fit. A record always fits
    /// an empty queue, so one record larger than the budget still passes.
    fn try_reserve(&self, size: usize) -> bool {
        let mut now = self.queued_bytes.load(Ordering::Relaxed);
        loop {
            if now != 0 && now + size > self.max_bytes {
                return false;
            }
            match self.queued_bytes.compare_exchange_weak(
                now,
                now + size,
                Ordering::SeqCst,
                Ordering::Relaxed,
            ) {
                Ok(_) => return true,
                Err(seen) => now = seen,
            }
        }
    }

    /// Takes `size` bytes of the budget, waiting for the writer to free
    /// them (under [`Overflow::Block`]).
    #[cold]
    fn reserve_blocking(&self, size: usize) {
        self.byte_waiters.fetch_add(1, Ordering::SeqCst);
        let mut room = self.room.lock().unwrap_or_else(|e| e.into_inner());
        while !self.try_reserve(size) {
            if self.writer_gone.load(Ordering::SeqCst) {
                // Nobody frees bytes any more: let it through; it is
                // counted as dropped by the send or by the exit flush.
                self.queued_bytes.fetch_add(size, Ordering::SeqCst);
                break;
            }
            // The timeout only guards against a wake-up the writer skipped.
            room = match self
                .room_freed
                .wait_timeout(room, Duration::from_millis(10))
            {
                Ok((room, _)) => room,
                Err(e) => e.into_inner().0,
            };
        }
        drop(room);
        self.byte_waiters.fetch_sub(1, Ordering::SeqCst);
    }

    /// Gives `size` bytes back and wakes callers waiting for them.
    fn release(&self, size: usize) {
        self.queued_bytes.fetch_sub(size, Ordering::SeqCst);
        if self.byte_waiters.load(Ordering::SeqCst) > 0 {
            let _room = self.room.lock().unwrap_or_else(|e| e.into_inner());
            self.room_freed.notify_all();
        }
    }

    /// Returns a store to the pool, unless it grew too big or the pool
    /// holds its byte bound already (then it is freed).
    fn give_back(&self, pool: &Sender<Store>, store: Store) {
        let Some(store) = store.recycle() else { return };
        let size = store.bytes();
        if self.pooled_bytes.load(Ordering::Relaxed) + size > self.max_pooled {
            return;
        }
        self.pooled_bytes.fetch_add(size, Ordering::Relaxed);
        if let Err(e) = pool.try_send(store) {
            self.pooled_bytes
                .fetch_sub(e.into_inner().bytes(), Ordering::Relaxed);
        }
    }

    /// Counts a record that came after the exit flush as dropped, or
    /// answers a flush request, without writing anything.
    fn discard(&self, pool: &Sender<Store>, msg: Msg) {
        match msg {
            Msg::Record(record) => {
                self.release(record.bytes());
                self.dropped.fetch_add(1, Ordering::Relaxed);
                self.give_back(pool, record.into_store());
            }
            Msg::Flush(ack) | Msg::Close(ack) => {
                let _ = ack.send(());
            }
        }
    }

    /// A store from the pool, or a new one.
    fn take_store(&self, pool: &Receiver<Store>) -> Store {
        match pool.try_recv() {
            Ok(store) => {
                self.pooled_bytes
                    .fetch_sub(store.bytes(), Ordering::Relaxed);
                store
            }
            Err(_) => Store::sized(),
        }
    }
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
/// Cargo feature `async` (on by default).
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
    /// The queue's other end, for the exit flush to empty (and count) what
    /// the writer will not get to.
    rx: Receiver<Msg>,
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
            .field("preallocated", &self.preallocated)
            .field("max_bytes", &self.max_bytes)
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
            max_bytes: DEFAULT_MAX_BYTES,
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
    /// Bounds the bytes queued records hold beyond the sink's fixed
    /// buffers (default [`DEFAULT_MAX_BYTES`], 64 MiB): a record that would
    /// pass the bound makes the caller wait ([`Overflow::Block`]) or is
    /// dropped and counted ([`Overflow::Drop`]), exactly as a full buffer
    /// does. A record larger than the bound still passes when nothing else
    /// is queued.
    ///
    /// What the sink holds at worst, with its own writer
    /// ([`builder`](AsyncSink::builder)): one
    /// [`thread_buffer`](Self::thread_buffer) per thread logging at the
    /// same time (an exited thread's buffer goes, records and all, to the
    /// next thread that logs; empty ones are kept for reuse only within
    /// `max_bytes`), plus `max_bytes` of long texts (over 256 bytes, which
    /// leave the thread buffer) and of records too large for a thread
    /// buffer, plus the writer's batch (64 KiB plus one line). Wrapping a
    /// sink ([`wrapping`](AsyncSink::wrapping)): `max_bytes` of queued
    /// records, a quarter of it in the pool of reusable buffers, the
    /// queue's slots (about 100 bytes x capacity, allocated up front) and
    /// the batch.
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
    /// thread. If the thread cannot be started, the failure is reported once
    /// on stderr, records are counted as dropped, and neither
    /// [`Overflow::Block`] callers nor `flush` wait for it.
    pub fn build(self) -> AsyncSink {
        // Bytes go through per-thread rings; only a wrapped sink takes the
        // channel and its writer.
        let inner = match &self.out {
            Output::Bytes(_) => return self.build_rings(),
            Output::Sink(inner) => inner.clone(),
        };
        let (tx, rx) = bounded(self.capacity);
        let exit_rx = rx.clone();
        let (pool_tx, pool_rx) = bounded(self.capacity);
        let wrapped = matches!(self.out, Output::Sink(_));
        let shared = Arc::new(Shared::new(self.name, self.max_bytes));
        for _ in 0..self.preallocated.min(self.capacity) {
            shared.give_back(&pool_tx, Store::sized());
        }
        let writer = Writer {
            inner,
            rx,
            pool: pool_tx.clone(),
            shared: shared.clone(),
            closed: false,
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
            rx: exit_rx,
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
            self.max_bytes,
        );
        // The channel is unused in this form: the smallest one, no pool.
        let (tx, rx) = bounded(1);
        let (pool_tx, pool_rx) = bounded(1);
        AsyncSink {
            pid: crate::process::pid(),
            rings: Some(rings),
            tx,
            rx,
            wrapped: false,
            telemetry: self.telemetry,
            pool_rx,
            pool_tx,
            shared: Arc::new(Shared::new(self.name, self.max_bytes)),
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
                queued_bytes: rings.heap_bytes(),
                max_bytes: rings.max_bytes(),
            };
        }
        AsyncStats {
            written: self.shared.written.load(Ordering::Relaxed),
            dropped: self.shared.dropped.load(Ordering::Relaxed),
            failed: self.shared.failed.load(Ordering::Relaxed),
            queued: self.tx.len() as u64,
            queued_bytes: self.shared.queued_bytes.load(Ordering::Relaxed) as u64,
            max_bytes: self.shared.max_bytes as u64,
        }
    }

    fn enqueue(&self, record: Captured) {
        let size = record.bytes();
        let block = self.policy == Overflow::Block && !on_writer();
        if !self.shared.try_reserve(size) {
            if !block {
                return self.refuse(record);
            }
            self.shared.reserve_blocking(size);
        }
        let refused = match self.tx.try_send(Msg::Record(record)) {
            Ok(()) => None,
            Err(TrySendError::Full(msg)) if block => self.send_blocking(msg),
            Err(e) => Some(e.into_inner()),
        };
        if let Some(Msg::Record(record)) = refused {
            self.shared.release(size);
            self.refuse(record);
        }
    }

    /// Waits for room in the queue (under [`Overflow::Block`]); gives the
    /// message back if the writer thread is gone, as nobody would make room.
    #[cold]
    fn send_blocking(&self, mut msg: Msg) -> Option<Msg> {
        loop {
            match self.tx.send_timeout(msg, WRITER_CHECK) {
                Ok(()) => return None,
                Err(SendTimeoutError::Timeout(m))
                    if !self.shared.writer_gone.load(Ordering::SeqCst) =>
                {
                    msg = m;
                }
                Err(e) => return Some(e.into_inner()),
            }
        }
    }

    /// Counts a record the queue did not take, and keeps its buffer.
    fn refuse(&self, record: Captured) {
        self.shared.dropped.fetch_add(1, Ordering::Relaxed);
        self.shared.give_back(&self.pool_tx, record.into_store());
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
    fn is_own_thread(&self) -> bool {
        on_writer()
    }
    fn emit(&self, record: &Record<'_>) {
        if self.in_forked_child() {
            return self.drop_in_child();
        }
        if self.shared.closed.load(Ordering::Relaxed) {
            return self.drop_unwritten();
        }
        if let Some(rings) = &self.rings {
            return rings.emit(record);
        }
        // The writer empties stores before returning them to the pool.
        // An empty pool (a burst larger than the preallocation) allocates
        // here, sized like a pooled store so the record need not regrow it.
        let store = self.shared.take_store(&self.pool_rx);
        self.enqueue(Captured::capture(record, store, self.wrapped));
    }
    /// Waits until everything queued before the call is written. When the
    /// process is exiting (the exit handler's flush), the sink closes:
    /// records that arrive from threads still running are dropped and
    /// counted, and one line on stderr reports them, so
    /// written + dropped + failed = emitted holds at exit too.
    fn flush(&self) {
        if on_writer() || self.in_forked_child() || self.shared.closed.load(Ordering::Relaxed) {
            return;
        }
        if crate::process::exiting() {
            return self.close_at_exit();
        }
        if let Some(rings) = &self.rings {
            if !rings.flush(self.shutdown_timeout) {
                if let Some(timeout) = self.shutdown_timeout {
                    self.report_timeout(timeout);
                }
            }
            return;
        }
        self.send_and_wait(Msg::Flush);
    }
}

impl AsyncSink {
    /// A record emitted after the exit flush began, or with no writer
    /// thread: dropped and counted.
    #[cold]
    fn drop_unwritten(&self) {
        match &self.rings {
            Some(r) => r.shared().dropped.fetch_add(1, Ordering::Relaxed),
            None => self.shared.dropped.fetch_add(1, Ordering::Relaxed),
        };
    }

    /// The exit flush: stop taking records, let the writer write and flush
    /// what came before, then count what is left in the queue as dropped
    /// (the writer writes nothing more: a line it started as the process
    /// ends would be cut off, and one counted as written might not be).
    fn close_at_exit(&self) {
        let before = self.stats().dropped;
        self.shared.closed.store(true, Ordering::SeqCst);
        match &self.rings {
            Some(rings) => {
                let _ = rings.close(self.shutdown_timeout);
            }
            None => {
                self.send_and_wait(Msg::Close);
                while let Ok(msg) = self.rx.try_recv() {
                    self.shared.discard(&self.pool_tx, msg);
                }
            }
        }
        let s = self.stats();
        let late = s.dropped - before;
        if late > 0 {
            let _ = crate::process::write_stderr(
                format!(
                    "elide: {}: {late} records emitted while the exit flush ran were dropped; \
                     at exit: written {}, dropped {} (with those), failed {}\n",
                    self.shared.name, s.written, s.dropped, s.failed
                )
                .as_bytes(),
            );
        }
    }

    /// Sends a flush-like request and waits for its answer (within the
    /// shutdown timeout, if set). Waits in slices, to notice a writer thread
    /// that is gone (it never started, or it ended): the sink's own
    /// receiver keeps the queue open, so nothing else would end the wait.
    fn send_and_wait(&self, request: fn(Sender<()>) -> Msg) {
        let (ack_tx, ack_rx) = bounded(1);
        let mut msg = request(ack_tx);
        let deadline = self.shutdown_timeout.map(|t| (t, Instant::now() + t));
        // The next slice to wait, or why to stop: Some(timeout) once the
        // timeout has passed, None if the writer is gone.
        let next = || {
            if self.shared.writer_gone.load(Ordering::SeqCst) {
                return Err(None);
            }
            match deadline {
                None => Ok(WRITER_CHECK),
                Some((timeout, at)) => match at.checked_duration_since(Instant::now()) {
                    Some(left) => Ok(left.min(WRITER_CHECK)),
                    None => Err(Some(timeout)),
                },
            }
        };
        loop {
            let wait = match next() {
                Ok(wait) => wait,
                Err(timed_out) => {
                    if let Some(timeout) = timed_out.filter(|_| !self.tx.is_empty()) {
                        self.report_timeout(timeout);
                    }
                    return;
                }
            };
            match self.tx.send_timeout(msg, wait) {
                Ok(()) => break,
                Err(SendTimeoutError::Timeout(m)) => msg = m,
                Err(SendTimeoutError::Disconnected(_)) => return,
            }
        }
        loop {
            let wait = match next() {
                Ok(wait) => wait,
                Err(timed_out) => {
                    if let Some(timeout) = timed_out {
                        self.report_timeout(timeout);
                    }
                    return;
                }
            };
            if !matches!(ack_rx.recv_timeout(wait), Err(RecvTimeoutError::Timeout)) {
                return;
            }
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
    /// The wrapped sink.
    inner: Arc<dyn Sink>,
    rx: Receiver<Msg>,
    pool: Sender<Store>,
    shared: Arc<Shared>,
    /// After an exit flush: records are dropped and counted, not written.
    closed: bool,
    /// Drops already announced to the wrapped sink.
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
            if self.closed {
                self.shared.discard(&self.pool, msg);
                continue;
            }
            let mut taken = 0;
            loop {
                taken += 1;
                match msg {
                    Msg::Record(record) => self.take_record(record, &mut scratch),
                    Msg::Flush(ack) => acks.push(ack),
                    Msg::Close(ack) => {
                        acks.push(ack);
                        self.closed = true;
                    }
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
        if !self.closed {
            self.commit();
            self.flush_inner();
        }
    }

    fn take_record(&mut self, record: Captured, scratch: &mut Scratch) {
        self.shared.taken.fetch_add(1, Ordering::Relaxed);
        self.shared.release(record.bytes());
        let mut emitted = false;
        let store = record.replay(scratch, |r| {
            let what = "emit (the record is counted as failed)";
            emitted = self.call_inner(what, |inner| inner.emit(r)).is_some();
        });
        let count = if emitted {
            &self.shared.written
        } else {
            &self.shared.failed
        };
        count.fetch_add(1, Ordering::Relaxed);
        self.shared.give_back(&self.pool, store);
    }

    /// Calls the wrapped sink, containing a panic: `None` if it panicked,
    /// which is counted in [`stats`](crate::stats) and reported on stderr
    /// the first time (`what`: the call, and what follows from it). All of
    /// the writer's calls into the wrapped sink go through here, so no panic
    /// of it ends the writer thread.
    fn call_inner<T>(&self, what: &str, f: impl FnOnce(&dyn Sink) -> T) -> Option<T> {
        let out = contained(|| f(&*self.inner));
        if out.is_none() {
            crate::stats::SINK_PANICS.fetch_add(1, Ordering::Relaxed);
            self.report_panic(what);
        }
        out
    }

    /// Reports the first panic of the wrapped sink on stderr.
    fn report_panic(&self, what: &str) {
        if !self.shared.panic_reported.swap(true, Ordering::Relaxed) {
            let name = &self.shared.name;
            let _ = writeln!(
                io::stderr(),
                "elide: {name}: the wrapped sink panicked in {what}; the writer goes on \
                 (further panics are counted in elide::stats())"
            );
        }
    }

    /// Flushes the wrapped sink.
    fn flush_inner(&self) {
        self.call_inner("flush", |inner| inner.flush());
    }

    /// Ends a batch: tells the wrapped sink about new drops.
    fn commit(&mut self) {
        let dropped = self.shared.dropped.load(Ordering::Relaxed);
        if dropped > self.reported_drops {
            let n = dropped - self.reported_drops;
            self.reported_drops = dropped;
            let fields = [("dropped", Value::U64(n))];
            let notice = |args| Record::new(&DROPPED_META, Level::Warn, args, &fields);
            let Some(level) = self.call_inner("max_level", |inner| inner.max_level()) else {
                return;
            };
            if Level::Warn <= level {
                let args = format_args!("{n} records dropped");
                self.call_inner("emit", |inner| inner.emit(&notice(args)));
            }
        }
    }
}

impl Drop for Writer {
    /// However the writer thread ends, or if it never started (the closure
    /// that owns the writer is dropped), callers waiting for bytes, room or
    /// a flush stop waiting, and later records are dropped and counted.
    fn drop(&mut self) {
        self.shared.closed.store(true, Ordering::SeqCst);
        self.shared.writer_gone.store(true, Ordering::SeqCst);
        self.shared.release(0);
    }
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

    #[test]
    fn the_byte_budget_takes_what_fits_and_one_record_into_an_empty_queue() {
        let s = Shared::new("t".into(), 100);
        assert!(s.try_reserve(250), "an empty queue takes any one record");
        assert!(!s.try_reserve(1), "then nothing more");
        s.release(250);
        assert!(s.try_reserve(60));
        assert!(s.try_reserve(40), "an exact fit is taken");
        assert_eq!(s.queued_bytes.load(Ordering::Relaxed), 100);
        assert!(!s.try_reserve(1));
        s.release(40);
        assert!(!s.try_reserve(41));
        assert!(s.try_reserve(40));
    }

    #[test]
    fn a_blocking_reservation_takes_its_bytes_once_and_waits_for_room() {
        let s = Arc::new(Shared::new("t".into(), 100));
        s.reserve_blocking(30);
        assert_eq!(s.queued_bytes.load(Ordering::Relaxed), 30, "taken once");
        s.reserve_blocking(70);
        assert_eq!(s.queued_bytes.load(Ordering::Relaxed), 100);
        let waiter = {
            let s = Arc::clone(&s);
            std::thread::spawn(move || s.reserve_blocking(50))
        };
        // It cannot have its bytes before some are given back.
        std::thread::sleep(Duration::from_millis(30));
        assert_eq!(s.queued_bytes.load(Ordering::Relaxed), 100);
        s.release(70);
        waiter.join().unwrap();
        assert_eq!(s.queued_bytes.load(Ordering::Relaxed), 80);
    }

    #[test]
    fn a_sink_and_its_builder_debug_as_their_settings() {
        let builder = AsyncSink::builder(io::sink())
            .name("audit")
            .capacity(128)
            .overflow(Overflow::Drop);
        let text = format!("{builder:?}");
        for part in ["AsyncSinkBuilder", "\"audit\"", "capacity: 128", "Drop"] {
            assert!(text.contains(part), "{part} in {text}");
        }
        let sink = builder.build();
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

    use crate::metadata::TEST_LOG as TEST_META;
    use crate::sink::until;

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
        /// (the gate is open, the held record is let through)
        open: Mutex<(bool, bool)>,
        opened: Condvar,
        entered: Mutex<Option<crossbeam_channel::Sender<()>>>,
        seen: AtomicUsize,
        messages: Mutex<Vec<String>>,
        flushes: AtomicUsize,
        /// The message of a record whose `emit` panics.
        fail: Option<&'static str>,
        /// The message of a record that waits, past the open gate, until
        /// it is let through.
        hold: Option<&'static str>,
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
            let held = self.hold.is_some_and(|m| message == m);
            let mut open = self.open.lock().unwrap();
            while !open.0 || (held && !open.1) {
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
            self.open.lock().unwrap().0 = true;
            self.opened.notify_all();
        }
        fn close(&self) {
            self.open.lock().unwrap().0 = false;
        }
        fn let_through(&self) {
            self.open.lock().unwrap().1 = true;
            self.opened.notify_all();
        }
        /// A receiver told when the next record enters `emit`.
        fn on_entry(&self) -> crossbeam_channel::Receiver<()> {
            let (tx, rx) = bounded(1);
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
        assert_eq!(sink.left(), 3, "two queued, one in hand");
        inner.open();
        sink.flush();
        // Record 2 failed (its panic contained and counted): done too.
        assert_eq!((sink.stats().written, sink.stats().failed), (2, 1));
        assert_eq!(sink.left(), 0);
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

    /// A flush waits for what was queued before it, not for records that
    /// came after it: a flush under steady logging still returns.
    #[test]
    fn a_flush_is_answered_before_the_records_queued_after_it() {
        let inner = Arc::new(Gated {
            hold: Some("record 1"),
            ..Gated::default()
        });
        let entered = inner.on_entry();
        let sink = Arc::new(AsyncSink::wrap(inner.clone()));
        record_into(&sink, 0);
        entered.recv().unwrap(); // the writer holds record 0
        let (done_tx, done_rx) = bounded(1);
        let flusher = {
            let sink = Arc::clone(&sink);
            std::thread::spawn(move || {
                sink.flush();
                let _ = done_tx.send(());
            })
        };
        until("the flush request is queued", || sink.tx.len() == 1);
        record_into(&sink, 1); // queued behind the flush request, and held
        inner.open();
        let answered = done_rx.recv_timeout(Duration::from_secs(10));
        inner.let_through();
        flusher.join().unwrap();
        assert!(
            answered.is_ok(),
            "the flush waited for a record queued after it"
        );
        assert_eq!(inner.flushes.load(Ordering::SeqCst), 1, "inner flushed");
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
        let sink = AsyncSink::wrapping(inner.clone())
            .capacity(2)
            .shutdown_timeout(Duration::from_millis(20))
            .build();
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
        let sink = AsyncSink::wrapping(inner.clone())
            .capacity(2)
            .overflow(Overflow::Drop)
            .build();
        let mut i = 0;
        for dropped in [2, 3] {
            inner.close();
            let entered = inner.on_entry();
            record_into(&sink, i);
            entered.recv().unwrap(); // the writer holds it
            for _ in 0..2 + dropped {
                i += 1;
                record_into(&sink, i); // two queued, the rest dropped
            }
            i += 1;
            inner.open();
            sink.flush();
        }
        assert_eq!(sink.stats().dropped, 5);
        let messages = inner.messages.lock().unwrap();
        let notices: Vec<&str> = messages
            .iter()
            .filter(|m| m.contains("dropped"))
            .map(String::as_str)
            .collect();
        assert_eq!(notices, ["2 records dropped", "3 records dropped"]);
        assert_eq!(
            messages.len(),
            2 * 3 + 2,
            "three records a round, two notices"
        );
        assert!(
            !sink.shared.panic_reported.load(Ordering::Relaxed),
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
        // Room for one record at a time: callers wait for the writer.
        let sink = AsyncSink::wrapping(inner.clone()).max_bytes(1).build();
        for i in 0..50 {
            record_into(&sink, i);
        }
        sink.flush();
        assert_eq!(inner.seen.load(Ordering::SeqCst), 50);
        let stats = sink.stats();
        assert_eq!((stats.dropped, stats.queued_bytes), (0, 0), "{stats:?}");
    }

    #[test]
    fn the_documented_defaults() {
        assert_eq!(DEFAULT_MAX_BYTES, 64 << 20, "64 MiB in flight");
        assert_eq!(DEFAULT_THREAD_BUFFER, 1 << 20, "1 MiB per thread");
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
        let sink = AsyncSink::builder(out.clone()).thread_buffer(1).build();
        let big = "x".repeat(30 * 1024);
        // A long text and 64 fields: several hundred words of buffer.
        let fields: Vec<crate::Field<'_>> =
            NAMES.iter().map(|n| (*n, crate::Value::U64(7))).collect();
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
