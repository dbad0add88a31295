//! The writer thread of the async queue: drains the rings oldest record
//! first, formats records into batches and group-commits them to an
//! `io::Write`, or hands each rebuilt record to a wrapped sink; announces
//! drops, answers flushes, and frees the rings of exited threads.

use std::io::{self, Write};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::codec;
use super::ring::Ring;
use super::shared::{lock, RingShared};
use super::wake::{IDLE, IDLE_MAX};
use super::DROPPED_META;
use crate::contain::contained;
use crate::format::Format;
use crate::record::level::Level;
use crate::record::value::Value;
use crate::record::Record;
use crate::sink::whole_lines::WholeLines;
use crate::sink::Sink;

/// Bytes gathered before they are handed to the writer, within one batch.
const CHUNK: usize = 64 * 1024;

/// Where the writer puts records.
pub(crate) enum Output {
    /// Formatted lines, written in batches, flushed once per batch.
    Bytes(Box<dyn Write + Send>),
    /// A wrapped sink: each record is rebuilt and emitted; flushed when a
    /// flush is requested and when the writer stops.
    Sink(Arc<dyn Sink>),
}

pub(super) struct RingWriter {
    shared: Arc<RingShared>,
    out: Output,
    /// Records handed to `out` since it was last flushed.
    unflushed: u64,
    format: Format,
    batch: String,
    batch_lines: u64,
    /// Where the writer's own notice lines start in `batch` (not records).
    notices: Vec<usize>,
    /// The rest of a line a failed write tore, written before anything else.
    lines: WholeLines,
    reported_drops: u64,
    rings: Vec<Arc<Ring>>,
    max_batch: usize,
    scratch: codec::Scratch,
}

impl RingWriter {
    pub(super) fn new(
        shared: Arc<RingShared>,
        out: Output,
        format: Format,
        max_batch: usize,
    ) -> RingWriter {
        RingWriter {
            shared,
            out,
            unflushed: 0,
            format,
            batch: String::new(),
            batch_lines: 0,
            notices: Vec::new(),
            lines: WholeLines::default(),
            reported_drops: 0,
            rings: Vec::new(),
            max_batch: max_batch.max(1),
            scratch: codec::Scratch::default(),
        }
    }

    pub(super) fn run(mut self) {
        super::ON_WRITER.with(|w| w.set(true));
        let shared = self.shared.clone();
        let mut idle = IDLE;
        loop {
            crate::os::clock::recalibrate();
            // The request first: a thread that registered its ring, wrote
            // into it and then asked for a flush has set `rings_changed`
            // before `requested`, so this round then drains its ring too.
            let requested = shared.flush_requested.load(Ordering::Acquire);
            if shared.rings_changed.swap(false, Ordering::Acquire) {
                self.rings = lock(&shared.rings).clone();
            }
            let shutdown = shared.shutdown.load(Ordering::Acquire);
            let taken = self.drain();
            let done = *lock(&shared.flushed);
            // After the exit flush nothing more is written: a line started
            // as the process ends would be cut off.
            let discarding = shared.discarding.load(Ordering::Acquire);
            let new_drops = shared.dropped.load(Ordering::Relaxed) > self.reported_drops;
            if !discarding && (taken > 0 || requested > done || new_drops) {
                self.commit();
            }
            // A flush is answered once a round found nothing left: a full
            // batch may have left records published before the request.
            if requested > done && taken < self.max_batch {
                if !discarding {
                    self.flush_sink(true);
                }
                *lock(&shared.flushed) = requested;
                shared.flushed_cv.notify_all();
            }
            self.forget_drained_rings();
            if taken > 0 {
                idle = IDLE;
                continue;
            }
            if shutdown {
                break;
            }
            shared.sleeping.store(true, Ordering::SeqCst);
            if self.rings.iter().any(|r| !r.is_empty())
                || shared.rings_changed.load(Ordering::SeqCst)
                || shared.flush_requested.load(Ordering::SeqCst) > requested
                || shared.shutdown.load(Ordering::SeqCst)
            {
                shared.sleeping.store(false, Ordering::Relaxed);
                continue;
            }
            std::thread::park_timeout(idle);
            idle = (idle * 2).min(IDLE_MAX);
            shared.sleeping.store(false, Ordering::Relaxed);
        }
        if !shared.discarding.load(Ordering::Acquire) {
            self.commit();
            self.flush_sink(false);
        }
    }

    /// Flushes a wrapped sink: on request (`always`), or when the writer
    /// stops if it was given anything since its last flush. Between
    /// flushes the wrapped sink's own buffering applies.
    fn flush_sink(&mut self, always: bool) {
        if let Output::Sink(inner) = &self.out {
            if always || self.unflushed > 0 {
                self.unflushed = 0;
                let inner = &**inner;
                self.shared.call_inner("flush", || inner.flush());
            }
        }
    }

    /// Formats records from all rings, oldest first, up to one batch.
    fn drain(&mut self) -> usize {
        let mut taken = 0;
        while taken < self.max_batch {
            let mut best: Option<(usize, u64)> = None;
            for (i, r) in self.rings.iter().enumerate() {
                // SAFETY: the writer is every ring's only consumer.
                if let Some(rec) = unsafe { r.peek() } {
                    if best.map_or(true, |(_, t)| rec[2] < t) {
                        best = Some((i, rec[2]));
                    }
                }
            }
            let Some((i, _)) = best else { break };
            let ring = self.rings[i].clone();
            // SAFETY: as above; `rec` is dropped before `pop`.
            let Some(rec) = (unsafe { ring.peek() }) else {
                break;
            };
            let len = rec.len();
            // After the exit flush a record is read only to free its long
            // texts, then dropped.
            let discarding = self.shared.discarding.load(Ordering::Relaxed);
            self.format_record(rec, ring.thread, !discarding);
            ring.pop(len);
            taken += 1;
            if discarding {
                self.shared.dropped.fetch_add(1, Ordering::Relaxed);
            } else if let Output::Bytes(_) = self.out {
                // In the batch now, out of the ring: in hand until written.
                self.shared.in_hand.fetch_add(1, Ordering::Relaxed);
                self.batch_lines += 1;
                if self.batch.len() >= CHUNK {
                    self.write_batch();
                }
            }
        }
        taken
    }

    /// Rebuilds the record in `w` and, if `deliver`, formats it into the
    /// batch or hands it to the wrapped sink (counted written or failed);
    /// gives the bytes of its long texts back to the budget.
    fn format_record(&mut self, w: &[u64], ring_thread: u64, deliver: bool) {
        let format = self.format;
        let batch = &mut self.batch;
        let (out, unflushed) = (&self.out, &mut self.unflushed);
        let shared = &*self.shared;
        let mut write = |record: &Record<'_>| match out {
            Output::Bytes(_) => format.write(record, batch),
            Output::Sink(inner) => {
                *unflushed += 1;
                shared.deliver(&**inner, record);
            }
        };
        let sink = deliver.then_some(&mut write as &mut dyn FnMut(&Record<'_>));
        // SAFETY: `w` is a record `push` encoded, still in its ring, and
        // the writer (this thread) is its only consumer: decoded once.
        let freed = unsafe { codec::decode(w, ring_thread, &mut self.scratch, sink) };
        if freed > 0 {
            self.shared.heap_bytes.fetch_sub(freed, Ordering::Relaxed);
        }
    }

    /// Frees empty rings of exited threads beyond those kept for reuse (as
    /// many as `max_bytes` holds).
    fn forget_drained_rings(&mut self) {
        let keep = self.shared.max_bytes / (self.shared.ring_words * 8).max(1);
        if self.shared.spare_len.load(Ordering::Relaxed) <= keep {
            return;
        }
        let mut spare = lock(&self.shared.spare);
        let mut freed: Vec<Arc<Ring>> = Vec::new();
        let mut i = 0;
        while spare.len() > keep && i < spare.len() {
            if spare[i].is_empty() {
                freed.push(spare.swap_remove(i));
            } else {
                i += 1;
            }
        }
        self.shared.spare_len.store(spare.len(), Ordering::Relaxed);
        drop(spare);
        if !freed.is_empty() {
            let mut all = lock(&self.shared.rings);
            all.retain(|r| !freed.iter().any(|f| Arc::ptr_eq(f, r)));
            self.rings = all.clone();
        }
    }

    fn fail(&self, lines: u64, err: &io::Error) {
        self.shared.failed.fetch_add(lines, Ordering::Relaxed);
        self.shared.in_hand.fetch_sub(lines, Ordering::Relaxed);
        crate::stats::report_write_error(&self.shared.name, err);
    }

    /// Hands the batch to `out` (no flush), after the rest of a line an
    /// earlier failure tore, so a failed write never glues a fragment to a
    /// later record (see `whole_lines`); a torn record counts as failed
    /// until completed.
    fn write_batch(&mut self) {
        let Output::Bytes(out) = &mut self.out else {
            return;
        };
        if self.batch.is_empty() {
            return;
        }
        let out = &mut Contained(&mut **out);
        let t = self
            .lines
            .write_records(out, &self.batch, self.batch_lines, &self.notices);
        if t.revived > 0 {
            self.shared.failed.fetch_sub(t.revived, Ordering::Relaxed);
            self.shared.in_hand.fetch_add(t.revived, Ordering::Relaxed);
        }
        self.unflushed += t.written;
        if let Some(e) = t.error {
            self.fail(t.failed, &e);
        }
        self.batch.clear();
        self.notices.clear();
        self.batch_lines = 0;
    }

    /// Ends a batch: announces new drops, writes, and flushes once (a
    /// wrapped sink only on request: see `flush_sink`).
    fn commit(&mut self) {
        let dropped = self.shared.dropped.load(Ordering::Relaxed);
        if dropped > self.reported_drops {
            let n = dropped - self.reported_drops;
            self.reported_drops = dropped;
            let fields = [("dropped", Value::U64(n))];
            let notice = |args| Record::new(&DROPPED_META, Level::Warn, args, &fields);
            match &self.out {
                Output::Bytes(_) => {
                    self.notices.push(self.batch.len());
                    self.format.write(
                        &notice(format_args!("{n} records dropped")),
                        &mut self.batch,
                    );
                }
                Output::Sink(inner) => {
                    let inner = &**inner;
                    let level = self.shared.call_inner("max_level", || inner.max_level());
                    if level.is_some_and(|level| Level::Warn <= level) {
                        self.unflushed += 1;
                        let args = format_args!("{n} records dropped");
                        self.shared.call_inner("emit", || inner.emit(&notice(args)));
                    }
                }
            }
        }
        self.write_batch();
        let Output::Bytes(out) = &mut self.out else {
            return;
        };
        let lines = self.unflushed;
        match Contained(&mut **out).flush() {
            Ok(()) => {
                self.shared.written.fetch_add(lines, Ordering::Relaxed);
                self.shared.in_hand.fetch_sub(lines, Ordering::Relaxed);
            }
            Err(e) => self.fail(lines, &e),
        }
        self.unflushed = 0;
    }
}

impl Drop for RingWriter {
    /// However the writer ends (shut down, or a bug of ours panicking),
    /// callers stop pushing into its rings and stop waiting for it: a dead
    /// writer must not leave `Block` callers and `flush` waiting forever.
    fn drop(&mut self) {
        for r in lock(&self.shared.rings).iter() {
            r.dead.store(true, Ordering::Release);
        }
        self.shared.writer_alive.store(false, Ordering::Release);
        // Under the lock, so a flush between its check and its wait still
        // hears this.
        let _flushed = lock(&self.shared.flushed);
        self.shared.flushed_cv.notify_all();
    }
}

/// The sink's output, with a panic in its `write` or `flush` (it is the
/// user's `Write`) turned into an error: the writer counts those lines as
/// failed and goes on, instead of dying with records queued behind it.
struct Contained<'a>(&'a mut dyn Write);

impl Contained<'_> {
    fn call<T>(&mut self, f: impl FnOnce(&mut dyn Write) -> io::Result<T>) -> io::Result<T> {
        let out = &mut *self.0;
        contained(|| f(out)).unwrap_or_else(|| {
            crate::stats::SINK_PANICS.fetch_add(1, Ordering::Relaxed);
            Err(io::Error::other("the output panicked"))
        })
    }
}

impl Write for Contained<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.call(|out| out.write(buf))
    }
    fn flush(&mut self) -> io::Result<()> {
        self.call(|out| out.flush())
    }
}

impl RingShared {
    /// Hands a rebuilt record to the wrapped sink and counts it written,
    /// or failed if the sink panicked.
    fn deliver(&self, inner: &dyn Sink, record: &Record<'_>) {
        let what = "emit (the record is counted as failed)";
        let count = match self.call_inner(what, || inner.emit(record)) {
            Some(()) => &*self.written,
            None => &self.failed,
        };
        count.fetch_add(1, Ordering::Relaxed);
    }

    /// Calls into the wrapped sink, containing a panic: `None` if it
    /// panicked, which is counted in [`stats`](crate::stats) and reported
    /// on stderr the first time (`what`: the call, and what follows from
    /// it). Every call of the writer into the wrapped sink goes through
    /// here, so no panic of it ends the writer thread.
    fn call_inner<T>(&self, what: &str, f: impl FnOnce() -> T) -> Option<T> {
        let out = contained(f);
        if out.is_none() {
            crate::stats::SINK_PANICS.fetch_add(1, Ordering::Relaxed);
            if !self.panic_reported.swap(true, Ordering::Relaxed) {
                let _ = writeln!(
                    io::stderr(),
                    "elide: {}: the wrapped sink panicked in {what}; the writer goes on \
                     (further panics are counted in elide::stats())",
                    self.name
                );
            }
        }
        out
    }
}
