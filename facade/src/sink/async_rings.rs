//! The queue of an [`AsyncSink`](super::AsyncSink) with its own writer:
//! one single-producer ring per logging thread ([`Ring`]), drained in
//! timestamp order by the writer thread, which formats and group-commits.
//!
//! # What the caller copies
//! A record whose message came with a raw view
//! ([`RawMessage`](crate::raw::RawMessage): every argument an integer,
//! float, `bool`, `char` or string) is copied as typed words: the site's
//! metadata pointer, the level, the time (the cheap clock,
//! [`crate::clock`]), the decoder pointer, each argument. Nothing is
//! formatted on the caller. Any other message is rendered on the caller
//! into the ring as text, and `Display`/`Debug` fields too (they borrow the
//! caller's data); typed fields are copied. Strings longer than
//! `MAX_INLINE` bytes are moved to the heap and the ring holds the pointer.
//!
//! # Guarantees (as the channel form's)
//! - `Block`: a full ring makes its thread wait for the writer; nothing is
//!   lost. `Drop`: the record is counted in `dropped` and the writer
//!   announces it in the output.
//! - A thread that exits hands its ring back to the sink, still registered
//!   (the writer drains it): the next thread that logs takes it over,
//!   records and all, so memory follows the threads alive at once, not
//!   the threads that ever logged, whatever the writer does. Empty rings
//!   of exited threads are kept for reuse only within `max_bytes`; the
//!   writer frees the rest. A record emitted while the thread's locals
//!   are being torn down goes to a shared ring under a lock.
//! - `flush` waits until everything published before it is written and
//!   flushed (or the shutdown timeout passes).
//! - A forked child has no writer: [`AsyncSink`](super::AsyncSink) counts
//!   its records as dropped before they reach here.
//!
//! Statics owned here: each thread's `LANES` (its rings, one per sink) and
//! `NEXT_ID` (sink identities, never reused).

use crate::contain::contained;
use std::cell::{Cell, RefCell};
use std::fmt::Write as _;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::Thread;
use std::time::{Duration, Instant, UNIX_EPOCH};

use crate::format::Format;
use crate::metadata::Metadata;
use crate::raw::{MessageFormat, RawArg, RawFloat, RawMessage};
use crate::record::Record;
use crate::sink::r#async::{on_writer, Overflow, DROPPED_META};
use crate::sink::ring::Ring;
use crate::sink::whole_lines::WholeLines;
use crate::sink::Sink;
use crate::value::{Field, Value};
use crate::Level;

/// Bytes gathered before they are handed to the writer, within one batch.
const CHUNK: usize = 64 * 1024;
/// Longer strings go to the heap; the ring keeps a pointer.
const MAX_INLINE: usize = 256;
/// How long an idle writer sleeps before it looks again, at first; it
/// doubles while nothing comes, up to `IDLE_MAX`. Callers do not wake the
/// writer for every record (a wake-up is a system call, microseconds):
/// only when their buffer is half full or full, or on `flush`.
const IDLE: Duration = Duration::from_millis(1);
const IDLE_MAX: Duration = Duration::from_millis(32);

/// Sink identities, so a thread's ring of a dropped sink is never mistaken
/// for a new sink's at the same address.
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

// Header word: length in words (bits 0..32), level (32..40), message
// arguments (40..56), flags (56..63; bit 63 stays clear so a header never
// reads as the ring's wrap marker). The fields are not counted: they run
// to the end of the record, so any number of them fits.
const RAW: u64 = 1 << 56;
const THREAD: u64 = 1 << 57;
/// A record too large for the ring, in a heap block: word 1 points at the
/// block, word 2 is its time, word 3 its length in words.
const BIG: u64 = 1 << 58;
const BIG_LEN: u64 = 4;
/// The thread's name follows the fixed words, as a text item (only for a
/// wrapped sink, which may print it; the line formats use the number).
const NAME: u64 = 1 << 59;

// Item tags (low byte of an item's first word; texts keep their length in
// bits 8..40). Tags 0..=16 are the `RawArg` kinds in declaration order.
const T_STATIC: u64 = 17;
const T_HEAP: u64 = 18;
const T_DISPLAY: u64 = 19;
const T_DEBUG: u64 = 20;
const T_HEAP_DISPLAY: u64 = 21;
const T_HEAP_DEBUG: u64 = 22;

/// State shared by the callers and the writer.
pub(crate) struct RingShared {
    id: u64,
    name: String,
    /// Whether records carry the thread's name (a wrapped sink's output).
    names: bool,
    /// Whether a panic of the wrapped sink was reported on stderr.
    panic_reported: AtomicBool,
    pub(crate) dropped: AtomicU64,
    written: AtomicU64,
    failed: AtomicU64,
    /// Records the writer has taken but not yet counted written or failed.
    in_hand: AtomicU64,
    /// Every ring that may hold records (exited threads' too).
    rings: Mutex<Vec<Arc<Ring>>>,
    rings_changed: AtomicBool,
    /// Rings of exited threads, registered still, that no thread produces
    /// into: the next new thread takes one over; the writer frees empty
    /// ones beyond `max_bytes`. Only taken out under this lock, so a ring
    /// the writer frees is never one a thread has just taken.
    spare: Mutex<Vec<Arc<Ring>>>,
    /// How many rings `spare` holds (read by the writer without the lock).
    spare_len: AtomicUsize,
    /// The ring of threads whose locals are gone, pushed under its lock.
    orphan: Mutex<Option<Arc<Ring>>>,
    ring_words: usize,
    policy: Overflow,
    writer: Mutex<Option<Thread>>,
    writer_alive: AtomicBool,
    sleeping: AtomicBool,
    shutdown: AtomicBool,
    flush_requested: AtomicU64,
    flushed: Mutex<u64>,
    flushed_cv: Condvar,
    /// Bytes of long texts moved to the heap by queued records, bounded by
    /// `max_bytes` (the rings themselves are fixed: one per thread).
    heap_bytes: AtomicUsize,
    max_bytes: usize,
    /// Set by the exit flush: the writer drops (and counts) what is left
    /// instead of writing it.
    discarding: AtomicBool,
}

/// The callers' side, owned by the [`AsyncSink`](super::AsyncSink).
pub(crate) struct RingQueue {
    shared: Arc<RingShared>,
}

/// One thread's rings, one per sink it logged into; the first entry is
/// checked before the list.
struct Lanes {
    last_id: Cell<u64>,
    last: Cell<*const Ring>,
    all: RefCell<Vec<Lane>>,
}

/// This thread's ring for one sink.
struct Lane {
    id: u64,
    ring: Arc<Ring>,
    /// The sink, to hand the ring back to when the thread exits.
    shared: std::sync::Weak<RingShared>,
}

impl Drop for Lanes {
    fn drop(&mut self) {
        // The sink keeps each ring registered (its writer drains it) and
        // gives it to the next thread that logs.
        for lane in self.all.get_mut().drain(..) {
            if let Some(shared) = lane.shared.upgrade() {
                shared.retire(lane.ring);
            }
        }
    }
}

thread_local! {
    static LANES: Lanes = const {
        Lanes {
            last_id: Cell::new(0),
            last: Cell::new(std::ptr::null()),
            all: RefCell::new(Vec::new()),
        }
    };
}

impl RingQueue {
    /// Starts the writer thread over `out`; rings of `ring_bytes` each.
    pub(crate) fn start(
        out: Output,
        name: String,
        format: Format,
        policy: Overflow,
        ring_bytes: usize,
        max_batch: usize,
        max_bytes: usize,
    ) -> RingQueue {
        let shared = Arc::new(RingShared {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            name,
            names: matches!(out, Output::Sink(_)),
            panic_reported: AtomicBool::new(false),
            dropped: AtomicU64::new(0),
            written: AtomicU64::new(0),
            failed: AtomicU64::new(0),
            in_hand: AtomicU64::new(0),
            rings: Mutex::new(Vec::new()),
            rings_changed: AtomicBool::new(false),
            spare: Mutex::new(Vec::new()),
            spare_len: AtomicUsize::new(0),
            orphan: Mutex::new(None),
            ring_words: ring_bytes / 8,
            policy,
            writer: Mutex::new(None),
            writer_alive: AtomicBool::new(true),
            sleeping: AtomicBool::new(false),
            shutdown: AtomicBool::new(false),
            flush_requested: AtomicU64::new(0),
            flushed: Mutex::new(0),
            flushed_cv: Condvar::new(),
            heap_bytes: AtomicUsize::new(0),
            max_bytes,
            discarding: AtomicBool::new(false),
        });
        crate::clock::recalibrate();
        let for_writer = shared.clone();
        let make_writer = move || RingWriter {
            shared: for_writer,
            out: match out {
                Output::Bytes(out) => Target::Lines(Contained(out)),
                Output::Sink(inner) => Target::Sink {
                    inner,
                    unflushed: false,
                },
            },
            format,
            batch: String::new(),
            batch_lines: 0,
            notices: Vec::new(),
            lines: WholeLines::default(),
            unflushed_lines: 0,
            reported_drops: 0,
            rings: Vec::new(),
            max_batch: max_batch.max(1),
            args: Vec::new(),
            fields: Vec::new(),
        };
        let spawned = std::thread::Builder::new()
            .name("elide-writer".to_owned())
            // Made there: its lists hold borrowed values, so it never
            // crosses threads.
            .spawn(move || make_writer().run());
        match spawned {
            Ok(h) => *lock(&shared.writer) = Some(h.thread().clone()),
            Err(e) => {
                shared.writer_alive.store(false, Ordering::Relaxed);
                crate::report_write_error(&format!("{} (writer thread)", shared.name), &e);
            }
        }
        RingQueue { shared }
    }

    pub(crate) fn shared(&self) -> &RingShared {
        &self.shared
    }

    /// Copies `record` into this thread's ring (see the module docs).
    #[inline]
    pub(crate) fn emit(&self, record: &Record<'_>) {
        let shared = &*self.shared;
        let ring = LANES.try_with(|l| {
            if l.last_id.get() == shared.id {
                l.last.get()
            } else {
                lane(l, &self.shared)
            }
        });
        match ring {
            // SAFETY: the pointer is kept alive by the thread's `Lanes`,
            // and this thread is the ring's only producer.
            Ok(ring) => unsafe { self.push(&*ring, record, (*ring).taken_over.get()) },
            Err(_) => self.emit_orphan(record),
        }
    }

    #[cold]
    fn emit_orphan(&self, record: &Record<'_>) {
        let Some(mut orphan) = crate::process::lock(&self.shared.orphan) else {
            self.shared.dropped.fetch_add(1, Ordering::Relaxed);
            return;
        };
        let ring = orphan
            .get_or_insert_with(|| {
                let ring = Arc::new(Ring::new(self.shared.ring_words, 0));
                self.shared.register(ring.clone());
                ring
            })
            .clone();
        // SAFETY: the lock makes this thread the ring's only producer.
        unsafe { self.push(&ring, record, true) };
    }

    /// Encodes `record` into `ring`, waiting for room under `Block`.
    ///
    /// # Safety
    /// The caller must be `ring`'s only producer.
    #[inline]
    unsafe fn push(&self, ring: &Ring, record: &Record<'_>, own_thread: bool) {
        if self.shared.names {
            // SAFETY: forwarded from the caller.
            return unsafe { self.push_named(ring, record, own_thread) };
        }
        // SAFETY: forwarded from the caller.
        unsafe { self.push_as(ring, record, own_thread, None) }
    }

    /// `push` with the thread's name, for a wrapped sink.
    #[cold]
    #[inline(never)]
    unsafe fn push_named(&self, ring: &Ring, record: &Record<'_>, own_thread: bool) {
        record.with_thread_name_str(|name| {
            // SAFETY: forwarded from the caller.
            unsafe { self.push_as(ring, record, own_thread, name) }
        });
    }

    /// # Safety
    /// The caller must be `ring`'s only producer.
    #[inline]
    unsafe fn push_as(
        &self,
        ring: &Ring,
        record: &Record<'_>,
        own_thread: bool,
        name: Option<&str>,
    ) {
        let shared = &*self.shared;
        if !shared.writer_alive.load(Ordering::Relaxed) {
            shared.dropped.fetch_add(1, Ordering::Relaxed);
            return;
        }
        let time = record.time_ns_or(crate::clock::now_ns);
        let thread = if own_thread || record.thread_override() != 0 {
            Some(record.thread_id())
        } else {
            None
        };
        match record.raw() {
            Some(raw) if plain_fields(record.fields()) => {
                let args = raw.args();
                let len = 4
                    + thread.is_some() as usize
                    + name_len(name)
                    + items_len(args)
                    + fields_len(record);
                let heap = heap_len(args.iter().map(|a| match a {
                    RawArg::Str(s) => s.len(),
                    _ => 0,
                })) + fields_heap(record)
                    + heap_len(name.map(str::len).into_iter());
                let head = header(len, record, args.len(), RAW, thread, name);
                let enc = |w: &mut [u64]| {
                    let mut at = start(w, head, record.metadata(), time, thread, name);
                    w[3] = raw.format() as *const MessageFormat as usize as u64;
                    for a in args {
                        at = put_arg(w, at, a);
                    }
                    put_fields(w, at, record.fields());
                };
                // SAFETY: forwarded from the caller.
                unsafe { self.push_with(ring, len, heap, enc) }
            }
            // SAFETY: forwarded from the caller.
            _ => unsafe { self.push_rendered(ring, record, time, thread, name) },
        }
    }

    /// A record whose message or fields must be rendered on the caller.
    #[cold]
    #[inline(never)]
    unsafe fn push_rendered(
        &self,
        ring: &Ring,
        record: &Record<'_>,
        time: u64,
        thread: Option<u64>,
        name: Option<&str>,
    ) {
        let mut text = String::new();
        let message = match record.args().as_str() {
            Some(s) => Item::Static(s),
            None => {
                record.write_message(&mut text);
                Item::Text(0, text.len())
            }
        };
        // Each field's rendered text, `text[a..b]` (empty for typed ones).
        let mut ranges = Vec::with_capacity(record.fields().len());
        // The values' `Debug`/`Display` run in here: a panic is theirs.
        crate::contain::formatting_values(|| {
            for (_, v) in record.fields() {
                let a = text.len();
                match v {
                    Value::Display(d) => {
                        let _ = write!(text, "{d}");
                    }
                    Value::Debug(d) => {
                        let _ = write!(text, "{d:?}");
                    }
                    _ => {}
                }
                ranges.push((a, text.len()));
            }
        });
        let fields_len: usize = record
            .fields()
            .iter()
            .zip(&ranges)
            .map(|((_, v), &(a, b))| 2 + value_arg(v).map_or(text_words(b - a), |x| arg_len(&x)))
            .sum();
        let len = 4 + usize::from(thread.is_some()) + name_len(name) + message.len() + fields_len;
        let message_heap = match message {
            Item::Text(a, b) => b - a,
            Item::Static(_) => 0,
        };
        let heap = heap_len(
            std::iter::once(message_heap)
                .chain(name.map(str::len))
                .chain(
                    record
                        .fields()
                        .iter()
                        .zip(&ranges)
                        .map(|((_, v), &(a, b))| match v {
                            Value::Str(s) => s.len(),
                            _ => b - a,
                        }),
                ),
        );
        let head = header(len, record, 0, 0, thread, name);
        let enc = |w: &mut [u64]| {
            let at = start(w, head, record.metadata(), time, thread, name);
            w[3] = 0;
            let mut at = message.put(w, at, &text);
            for ((k, v), &(a, b)) in record.fields().iter().zip(&ranges) {
                at = put_key(w, at, k);
                at = match (value_arg(v), v) {
                    (Some(x), _) => put_arg(w, at, &x),
                    (None, Value::Display(_)) => put_text(w, at, T_DISPLAY, &text[a..b]),
                    (None, _) => put_text(w, at, T_DEBUG, &text[a..b]),
                };
            }
        };
        // SAFETY: forwarded from the caller.
        unsafe { self.push_with(ring, len, heap, enc) }
    }

    /// Publishes a record of `len` words, holding `heap` bytes of long
    /// texts, waiting or dropping when the ring or the byte budget is full.
    #[inline]
    unsafe fn push_with(&self, ring: &Ring, len: usize, heap: usize, enc: impl Fn(&mut [u64])) {
        if len > ring.words() / 2 {
            // SAFETY: forwarded from the caller.
            return unsafe { self.push_big(ring, len, heap, &enc) };
        }
        if heap > 0 && !self.reserve_heap(heap) {
            return;
        }
        // SAFETY: forwarded from the caller.
        if unsafe { ring.try_push(len, &enc) } {
            if ring.filling() && self.shared.sleeping.load(Ordering::Relaxed) {
                self.shared.wake();
            }
            return;
        }
        if !self.wait_for_room(ring, len, &enc) {
            self.shared.heap_bytes.fetch_sub(heap, Ordering::Relaxed);
        }
    }

    /// Takes `heap` bytes of the budget (a record always fits when no long
    /// text is queued): at once, or under `Block` once the writer has freed
    /// them; under `Drop` a record over the budget is dropped and counted.
    #[cold]
    #[inline(never)]
    fn reserve_heap(&self, heap: usize) -> bool {
        let shared = &*self.shared;
        let mut tries = 0u32;
        loop {
            let now = shared.heap_bytes.load(Ordering::Relaxed);
            if now == 0 || now + heap <= shared.max_bytes {
                if shared
                    .heap_bytes
                    .compare_exchange_weak(now, now + heap, Ordering::Relaxed, Ordering::Relaxed)
                    .is_ok()
                {
                    return true;
                }
                continue;
            }
            if shared.policy == Overflow::Drop
                || on_writer()
                || !shared.writer_alive.load(Ordering::Relaxed)
            {
                shared.dropped.fetch_add(1, Ordering::Relaxed);
                return false;
            }
            shared.wake();
            tries += 1;
            backoff(tries);
        }
    }

    /// Whether the record was pushed (else it was dropped and counted).
    #[cold]
    #[inline(never)]
    fn wait_for_room(&self, ring: &Ring, len: usize, enc: &dyn Fn(&mut [u64])) -> bool {
        let shared = &*self.shared;
        if shared.policy == Overflow::Drop || on_writer() {
            shared.dropped.fetch_add(1, Ordering::Relaxed);
            return false;
        }
        let mut tries = 0u32;
        loop {
            shared.wake();
            // SAFETY: the caller of `push` is the only producer.
            if unsafe { ring.try_push(len, enc) } {
                return true;
            }
            if !shared.writer_alive.load(Ordering::Relaxed) {
                shared.dropped.fetch_add(1, Ordering::Relaxed);
                return false;
            }
            tries += 1;
            backoff(tries);
        }
    }

    /// A record too large for the ring (over half of it): encoded into a
    /// heap block of its own, whose bytes count against the byte budget,
    /// and queued in order as a small record pointing at it, so `Block`
    /// delivers it whole and `Drop` drops it only when the budget is spent.
    #[cold]
    #[inline(never)]
    unsafe fn push_big(&self, ring: &Ring, len: usize, heap: usize, enc: &dyn Fn(&mut [u64])) {
        let bytes = heap + len * 8;
        if !self.reserve_heap(bytes) {
            return;
        }
        // Encoded only once the pointer has a place: a block made for a
        // record that is then dropped would leak its long texts.
        let stub = |w: &mut [u64]| {
            let mut block = vec![0u64; len].into_boxed_slice();
            enc(&mut block);
            w[0] = BIG_LEN | BIG;
            w[2] = block[2];
            w[3] = len as u64;
            w[1] = Box::into_raw(block) as *mut u64 as usize as u64;
        };
        // SAFETY: forwarded from the caller.
        if unsafe { ring.try_push(BIG_LEN as usize, stub) } {
            if ring.filling() && self.shared.sleeping.load(Ordering::Relaxed) {
                self.shared.wake();
            }
            return;
        }
        if !self.wait_for_room(ring, BIG_LEN as usize, &stub) {
            self.shared.heap_bytes.fetch_sub(bytes, Ordering::Relaxed);
        }
    }

    /// Whether a panic of the wrapped sink was reported.
    #[cfg(test)]
    pub(crate) fn panic_reported(&self) -> bool {
        self.shared.panic_reported.load(Ordering::Relaxed)
    }

    /// Records published and not yet written.
    pub(crate) fn left(&self) -> u64 {
        self.shared.queued() + self.shared.in_hand.load(Ordering::Relaxed)
    }

    /// Waits until everything published before the call is written and
    /// flushed; false if `timeout` passed first.
    pub(crate) fn flush(&self, timeout: Option<Duration>) -> bool {
        let shared = &*self.shared;
        if !shared.writer_alive.load(Ordering::Acquire) {
            return true;
        }
        let ticket = shared.flush_requested.fetch_add(1, Ordering::AcqRel) + 1;
        shared.wake_now();
        let deadline = timeout.map(|t| Instant::now() + t);
        let mut done = lock(&shared.flushed);
        while *done < ticket && shared.writer_alive.load(Ordering::Acquire) {
            let wait = match deadline {
                Some(d) => match d.checked_duration_since(Instant::now()) {
                    Some(w) => w,
                    None => return false,
                },
                // Wakes now and then to notice a writer that died.
                None => Duration::from_millis(100),
            };
            done = shared
                .flushed_cv
                .wait_timeout(done, wait)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        true
    }

    /// The exit flush: writes everything published before the call, then
    /// has the writer drop (and count) whatever comes after instead of
    /// writing it; returns once that is done too (or `timeout` passed).
    pub(crate) fn close(&self, timeout: Option<Duration>) -> bool {
        let flushed = self.flush(timeout);
        self.shared.discarding.store(true, Ordering::SeqCst);
        flushed && self.flush(timeout)
    }

    /// Bytes of long texts held by queued records.
    pub(crate) fn heap_bytes(&self) -> u64 {
        self.shared.heap_bytes.load(Ordering::Relaxed) as u64
    }

    /// The byte budget of long texts.
    pub(crate) fn max_bytes(&self) -> u64 {
        self.shared.max_bytes as u64
    }

    /// Stops the writer once it has drained everything.
    pub(crate) fn shut_down(&self) {
        self.shared.shutdown.store(true, Ordering::Release);
        self.shared.wake_now();
    }
}

/// The slow part of finding this thread's ring for `shared`: looks in the
/// list (dropping rings of stopped sinks), else makes and registers one.
#[cold]
#[inline(never)]
fn lane(l: &Lanes, shared: &Arc<RingShared>) -> *const Ring {
    let mut all = l.all.borrow_mut();
    all.retain(|l| !l.ring.dead.load(Ordering::Relaxed));
    let ring = match all.iter().find(|l| l.id == shared.id) {
        Some(l) => l.ring.clone(),
        None => {
            let ring = shared.take_spare().unwrap_or_else(|| {
                let ring = Arc::new(Ring::new(shared.ring_words, crate::thread_number()));
                shared.register(ring.clone());
                ring
            });
            all.push(Lane {
                id: shared.id,
                ring: ring.clone(),
                shared: Arc::downgrade(shared),
            });
            ring
        }
    };
    l.last_id.set(shared.id);
    l.last.set(Arc::as_ptr(&ring));
    Arc::as_ptr(&ring)
}

impl RingShared {
    /// Hands a rebuilt record to the wrapped sink and counts it written,
    /// or failed if the sink panicked.
    fn deliver(&self, inner: &dyn Sink, record: &Record<'_>) {
        let what = "emit (the record is counted as failed)";
        let count = match self.call_inner(what, || inner.emit(record)) {
            Some(()) => &self.written,
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

    fn register(&self, ring: Arc<Ring>) {
        lock(&self.rings).push(ring);
        self.rings_changed.store(true, Ordering::Release);
    }

    /// Takes back the ring of a thread that exited (see `spare`).
    fn retire(&self, ring: Arc<Ring>) {
        if ring.dead.load(Ordering::Relaxed) {
            return;
        }
        let Some(mut spare) = crate::process::lock(&self.spare) else {
            return;
        };
        spare.push(ring);
        self.spare_len.store(spare.len(), Ordering::Relaxed);
    }

    /// A ring of an exited thread for this thread to produce into, records
    /// still queued in it and all. The lock hands the producer's side over.
    fn take_spare(&self) -> Option<Arc<Ring>> {
        let mut spare = crate::process::lock(&self.spare)?;
        let ring = spare.pop()?;
        self.spare_len.store(spare.len(), Ordering::Relaxed);
        ring.taken_over.set(true);
        Some(ring)
    }

    /// How many empty rings of exited threads are kept for reuse: as many
    /// as `max_bytes` holds.
    fn spare_kept(&self) -> usize {
        self.max_bytes / (self.ring_words * 8).max(1)
    }

    /// Records in the rings (approximate while callers run).
    pub(crate) fn queued(&self) -> u64 {
        crate::process::lock(&self.rings)
            .map(|r| r.iter().map(|r| r.queued()).sum())
            .unwrap_or(0)
    }

    pub(crate) fn counts(&self) -> (u64, u64, u64) {
        (
            self.written.load(Ordering::Relaxed),
            self.dropped.load(Ordering::Relaxed),
            self.failed.load(Ordering::Relaxed),
        )
    }

    #[inline]
    fn wake(&self) {
        if self.sleeping.swap(false, Ordering::AcqRel) {
            self.unpark();
        }
    }

    fn wake_now(&self) {
        self.sleeping.store(false, Ordering::Release);
        self.unpark();
    }

    fn unpark(&self) {
        if let Some(w) = crate::process::lock(&self.writer).and_then(|w| w.clone()) {
            w.unpark();
        }
    }
}

/// Waits a little longer each try: spin, then yield, then sleep.
fn backoff(tries: u32) {
    match tries {
        0..=63 => std::hint::spin_loop(),
        64..=127 => std::thread::yield_now(),
        _ => std::thread::sleep(Duration::from_micros(20)),
    }
}

/// Heap bytes of texts of these lengths (long ones leave the ring).
#[inline]
fn heap_len(lens: impl Iterator<Item = usize>) -> usize {
    lens.filter(|&n| n > MAX_INLINE).sum()
}

/// Heap bytes of a record's typed string fields.
#[inline]
fn fields_heap(record: &Record<'_>) -> usize {
    heap_len(record.fields().iter().map(|(_, v)| match v {
        Value::Str(s) => s.len(),
        _ => 0,
    }))
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

// ---- encoding -------------------------------------------------------------

/// Whether every field is typed (no `Display`/`Debug` to render).
#[inline]
fn plain_fields(fields: &[Field<'_>]) -> bool {
    fields
        .iter()
        .all(|(_, v)| !matches!(v, Value::Display(_) | Value::Debug(_)))
}

#[inline]
fn header(
    len: usize,
    record: &Record<'_>,
    nargs: usize,
    flags: u64,
    thread: Option<u64>,
    name: Option<&str>,
) -> u64 {
    len as u64
        | u64::from(record.level().as_u8()) << 32
        | (nargs as u64 & 0xffff) << 40
        | flags
        | if thread.is_some() { THREAD } else { 0 }
        | if name.is_some() { NAME } else { 0 }
}

/// Words of the thread's name item, if it is carried.
#[inline]
fn name_len(name: Option<&str>) -> usize {
    name.map_or(0, |n| text_words(n.len()))
}

/// Writes the fixed words (and the thread's name, if carried); returns
/// where the items start (word 3 is the decoder, written by the caller, or
/// the message's first word).
#[inline]
fn start(
    w: &mut [u64],
    head: u64,
    meta: &'static Metadata,
    time: u64,
    thread: Option<u64>,
    name: Option<&str>,
) -> usize {
    w[0] = head;
    w[1] = meta as *const Metadata as usize as u64;
    w[2] = time;
    let at = match thread {
        Some(t) => {
            w[4] = t;
            5
        }
        None => 4,
    };
    match name {
        Some(n) => put_text(w, at, 16, n),
        None => at,
    }
}

fn text_words(len: usize) -> usize {
    if len > MAX_INLINE {
        2
    } else {
        1 + len.div_ceil(8)
    }
}

#[inline]
fn arg_len(a: &RawArg<'_>) -> usize {
    match a {
        RawArg::I128(_) | RawArg::U128(_) => 3,
        RawArg::Str(s) => text_words(s.len()),
        _ if !a.is_owned() => text_words(0),
        _ => 2,
    }
}

#[inline]
fn items_len(args: &[RawArg<'_>]) -> usize {
    args.iter().map(arg_len).sum()
}

/// Words of the fields, typed ones in full and rendered ones without text.
#[inline]
fn fields_len(record: &Record<'_>) -> usize {
    record
        .fields()
        .iter()
        .map(|(_, v)| 2 + value_arg(v).map_or(0, |a| arg_len(&a)))
        .sum()
}

/// A field value as a raw argument, if typed.
#[inline]
fn value_arg<'a>(v: &Value<'a>) -> Option<RawArg<'a>> {
    Some(match *v {
        Value::I64(n) => RawArg::I64(n),
        Value::U64(n) => RawArg::U64(n),
        Value::I128(n) => RawArg::I128(n),
        Value::U128(n) => RawArg::U128(n),
        Value::F64(n) => RawArg::F64(RawFloat::new(n)),
        Value::Bool(b) => RawArg::Bool(b),
        Value::Char(c) => RawArg::Char(c),
        Value::Str(s) => RawArg::Str(s),
        Value::Display(_) | Value::Debug(_) => return None,
    })
}

#[inline]
fn put_arg(w: &mut [u64], at: usize, a: &RawArg<'_>) -> usize {
    let (tag, word) = match *a {
        RawArg::I8(n) => (0, n as u64),
        RawArg::I16(n) => (1, n as u64),
        RawArg::I32(n) => (2, n as u64),
        RawArg::I64(n) => (3, n as u64),
        RawArg::Isize(n) => (4, n as u64),
        RawArg::I128(n) => return put_wide(w, at, 5, n as u128),
        RawArg::U8(n) => (6, u64::from(n)),
        RawArg::U16(n) => (7, u64::from(n)),
        RawArg::U32(n) => (8, u64::from(n)),
        RawArg::U64(n) => (9, n),
        RawArg::Usize(n) => (10, n as u64),
        RawArg::U128(n) => return put_wide(w, at, 11, n),
        RawArg::F32(n) => (12, u64::from(n.get().to_bits())),
        RawArg::F64(n) => (13, n.get().to_bits()),
        RawArg::Bool(b) => (14, u64::from(b)),
        RawArg::Char(c) => (15, u64::from(c)),
        RawArg::Str(s) => return put_text(w, at, 16, s),
        // Not pushed: a message with a borrowed argument has no raw view.
        _ => return put_text(w, at, 16, ""),
    };
    w[at] = tag;
    w[at + 1] = word;
    at + 2
}

fn put_wide(w: &mut [u64], at: usize, tag: u64, n: u128) -> usize {
    w[at] = tag;
    w[at + 1] = (n >> 64) as u64;
    w[at + 2] = n as u64;
    at + 3
}

/// A text item: inline (tag, bytes) or, when long, moved to the heap.
fn put_text(w: &mut [u64], at: usize, tag: u64, s: &str) -> usize {
    if s.len() > MAX_INLINE {
        let heap_tag = match tag {
            16 => T_HEAP,
            T_DISPLAY => T_HEAP_DISPLAY,
            _ => T_HEAP_DEBUG,
        };
        let boxed: Box<str> = s.into();
        w[at] = heap_tag | (s.len() as u64) << 8;
        w[at + 1] = Box::into_raw(boxed) as *mut u8 as usize as u64;
        return at + 2;
    }
    w[at] = tag | (s.len() as u64) << 8;
    let words = s.len().div_ceil(8);
    let dst = &mut w[at + 1..at + 1 + words];
    if let Some(last) = dst.last_mut() {
        *last = 0;
    }
    // SAFETY: `dst` holds at least `s.len()` bytes; u64 has no invalid bytes.
    unsafe {
        std::ptr::copy_nonoverlapping(s.as_ptr(), dst.as_mut_ptr() as *mut u8, s.len());
    }
    at + 1 + words
}

#[inline]
fn put_key(w: &mut [u64], at: usize, key: &'static str) -> usize {
    w[at] = key.as_ptr() as usize as u64;
    w[at + 1] = key.len() as u64;
    at + 2
}

#[inline]
fn put_fields(w: &mut [u64], mut at: usize, fields: &[Field<'_>]) {
    for (k, v) in fields {
        at = put_key(w, at, k);
        if let Some(a) = value_arg(v) {
            at = put_arg(w, at, &a);
        }
    }
}

/// The message of a rendered record.
enum Item {
    Static(&'static str),
    /// Rendered text, `text[a..b]`.
    Text(usize, usize),
}

impl Item {
    fn len(&self) -> usize {
        match *self {
            Item::Static(_) => 2,
            Item::Text(a, b) => text_words(b - a),
        }
    }
    fn put(&self, w: &mut [u64], at: usize, text: &str) -> usize {
        match *self {
            Item::Static(s) => {
                w[at] = T_STATIC | (s.len() as u64) << 8;
                w[at + 1] = s.as_ptr() as usize as u64;
                at + 2
            }
            Item::Text(a, b) => put_text(w, at, T_DISPLAY, &text[a..b]),
        }
    }
}

// ---- the writer -----------------------------------------------------------

/// Where the writer puts records.
pub(crate) enum Output {
    /// Formatted lines, written in batches, flushed once per batch.
    Bytes(Box<dyn Write + Send>),
    /// A wrapped sink: each record is rebuilt and emitted; flushed when a
    /// flush is requested and when the writer stops.
    Sink(Arc<dyn Sink>),
}

/// The writer's side of an [`Output`].
enum Target {
    Lines(Contained),
    Sink {
        inner: Arc<dyn Sink>,
        /// Records emitted since the wrapped sink was last flushed.
        unflushed: bool,
    },
}

struct RingWriter {
    shared: Arc<RingShared>,
    out: Target,
    format: Format,
    batch: String,
    batch_lines: u64,
    /// Where the writer's own notice lines start in `batch` (not records).
    notices: Vec<usize>,
    /// The rest of a line a failed write tore, written before anything else.
    lines: WholeLines,
    unflushed_lines: u64,
    reported_drops: u64,
    rings: Vec<Arc<Ring>>,
    max_batch: usize,
    args: Vec<RawArg<'static>>,
    fields: Vec<Field<'static>>,
}

impl RingWriter {
    fn run(mut self) {
        super::r#async::enter_writer();
        let shared = self.shared.clone();
        let mut idle = IDLE;
        loop {
            crate::clock::recalibrate();
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
            if !discarding && (taken > 0 || requested > done || self.drops_to_announce()) {
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
        if let Target::Sink { inner, unflushed } = &mut self.out {
            if always || *unflushed {
                *unflushed = false;
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
            if self.shared.discarding.load(Ordering::Relaxed) {
                // Read only to free its long texts, then dropped.
                self.format_record(rec, ring.thread, false);
                ring.pop(len);
                self.shared.dropped.fetch_add(1, Ordering::Relaxed);
                taken += 1;
                continue;
            }
            self.format_record(rec, ring.thread, true);
            ring.pop(len);
            taken += 1;
            if let Target::Lines(_) = self.out {
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
    /// batch or hands it to the wrapped sink (counted written or failed).
    fn format_record(&mut self, w: &[u64], ring_thread: u64, deliver: bool) {
        let head = w[0];
        if head & BIG != 0 {
            let len = w[3] as usize;
            // SAFETY: `push_big` leaked this block of `len` words and the
            // ring holds the only pointer to it.
            let block: Box<[u64]> = unsafe {
                Box::from_raw(std::ptr::slice_from_raw_parts_mut(
                    w[1] as usize as *mut u64,
                    len,
                ))
            };
            self.format_record(&block, ring_thread, deliver);
            self.shared.heap_bytes.fetch_sub(len * 8, Ordering::Relaxed);
            return;
        }
        let level = Level::ALL
            .get(((head >> 32) as u8).wrapping_sub(1) as usize)
            .copied()
            .unwrap_or(Level::Info);
        let nargs = ((head >> 40) & 0xffff) as usize;
        let end = (head & 0xffff_ffff) as usize;
        // SAFETY: written from a `&'static Metadata` by `start`.
        let meta: &'static Metadata = unsafe { &*(w[1] as usize as *const Metadata) };
        let time = UNIX_EPOCH + Duration::from_nanos(w[2]);
        let (thread, mut at) = match head & THREAD {
            0 => (ring_thread, 4),
            _ => (w[4], 5),
        };
        let mut owned: Vec<Box<str>> = Vec::new();
        let name = match head & NAME {
            0 => None,
            _ => {
                let (a, next) = read_item(w, at, &mut owned);
                at = next;
                match a {
                    RawArg::Str(s) => Some(s),
                    _ => None,
                }
            }
        };
        let mut args: Vec<RawArg<'_>> = relifetime(std::mem::take(&mut self.args));
        let decoder = if head & RAW != 0 {
            for _ in 0..nargs {
                let (a, next) = read_item(w, at, &mut owned);
                args.push(a);
                at = next;
            }
            // SAFETY: written from a `&'static MessageFormat` by `push`.
            Some(unsafe { &*(w[3] as usize as *const MessageFormat) })
        } else {
            let (a, next) = read_item(w, at, &mut owned);
            args.push(a);
            at = next;
            None
        };
        let mut kinds = Vec::new();
        let mut keys = Vec::new();
        while at < end {
            // SAFETY: written from a `&'static str` by `put_fields`.
            let key: &'static str = unsafe {
                std::str::from_utf8_unchecked(std::slice::from_raw_parts(
                    w[at] as usize as *const u8,
                    w[at + 1] as usize,
                ))
            };
            keys.push(key);
            let tag = w[at + 2] & 0xff;
            let (a, next) = read_item(w, at + 2, &mut owned);
            kinds.push((tag, a));
            at = next;
        }
        let mut fields: Vec<Field<'_>> = relifetime(std::mem::take(&mut self.fields));
        // Rendered texts first (the fields borrow them).
        let rendered: Vec<Verbatim<'_>> = kinds
            .iter()
            .filter(|(t, _)| matches!(*t, T_DISPLAY | T_DEBUG | T_HEAP_DISPLAY | T_HEAP_DEBUG))
            .map(|(_, a)| match a {
                RawArg::Str(s) => Verbatim(s),
                _ => Verbatim(""),
            })
            .collect();
        let mut next_rendered = rendered.iter();
        for (key, (tag, a)) in keys.iter().zip(&kinds) {
            let value = match *tag {
                T_DISPLAY | T_HEAP_DISPLAY => {
                    Value::Display(next_rendered.next().unwrap_or(&Verbatim("")))
                }
                T_DEBUG | T_HEAP_DEBUG => {
                    Value::Debug(next_rendered.next().unwrap_or(&Verbatim("")))
                }
                _ => arg_value(a),
            };
            fields.push((key, value));
        }
        let format = self.format;
        let batch = &mut self.batch;
        let out = &mut self.out;
        let shared = &*self.shared;
        // The raw view goes along, so the line writer formats a data
        // format's pieces directly.
        let raw = decoder.map(|f| RawMessage::new(f, &args));
        let mut write = |m: std::fmt::Arguments<'_>| {
            let record = Record::new(meta, level, m, &fields)
                .with_time(time)
                .with_thread(thread)
                .with_thread_name_opt(name)
                .with_raw(raw);
            match out {
                Target::Lines(_) => format.write(&record, batch),
                Target::Sink { inner, unflushed } => {
                    *unflushed = true;
                    shared.deliver(&**inner, &record);
                }
            }
        };
        match (deliver, decoder) {
            (false, _) => {}
            (true, Some(format)) => format.with_arguments(&args, &mut write),
            (true, None) => match args.first() {
                Some(RawArg::Str(s)) => write(format_args!("{s}")),
                _ => write(format_args!("")),
            },
        }
        self.fields = relifetime(fields);
        self.args = relifetime(args);
        let freed: usize = owned.iter().map(|text| text.len()).sum();
        if freed > 0 {
            self.shared.heap_bytes.fetch_sub(freed, Ordering::Relaxed);
        }
        drop(owned);
    }

    fn drops_to_announce(&self) -> bool {
        self.shared.dropped.load(Ordering::Relaxed) > self.reported_drops
    }

    /// Frees empty rings of exited threads beyond those kept for reuse.
    fn forget_drained_rings(&mut self) {
        let keep = self.shared.spare_kept();
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
        crate::report_write_error(&self.shared.name, err);
    }

    /// Hands the batch to `out` (no flush), after the rest of a line an
    /// earlier failure tore, so a failed write never glues a fragment to a
    /// later record (see `whole_lines`); a torn record counts as failed
    /// until completed.
    fn write_batch(&mut self) {
        let Target::Lines(out) = &mut self.out else {
            return;
        };
        if self.batch.is_empty() {
            return;
        }
        let t = self
            .lines
            .write_records(out, &self.batch, self.batch_lines, &self.notices);
        if t.revived > 0 {
            self.shared.failed.fetch_sub(t.revived, Ordering::Relaxed);
            self.shared.in_hand.fetch_add(t.revived, Ordering::Relaxed);
        }
        self.unflushed_lines += t.written;
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
            match &mut self.out {
                Target::Lines(_) => {
                    self.notices.push(self.batch.len());
                    self.format.write(
                        &notice(format_args!("{n} records dropped")),
                        &mut self.batch,
                    );
                }
                Target::Sink { inner, unflushed } => {
                    let inner = &**inner;
                    let level = self.shared.call_inner("max_level", || inner.max_level());
                    if level.is_some_and(|level| Level::Warn <= level) {
                        *unflushed = true;
                        let args = format_args!("{n} records dropped");
                        self.shared.call_inner("emit", || inner.emit(&notice(args)));
                    }
                }
            }
        }
        self.write_batch();
        let Target::Lines(out) = &mut self.out else {
            return;
        };
        let lines = self.unflushed_lines;
        match out.flush() {
            Ok(()) => {
                self.shared.written.fetch_add(lines, Ordering::Relaxed);
                self.shared.in_hand.fetch_sub(lines, Ordering::Relaxed);
            }
            Err(e) => self.fail(lines, &e),
        }
        self.unflushed_lines = 0;
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
struct Contained(Box<dyn Write + Send>);

impl Contained {
    fn call<T>(&mut self, f: impl FnOnce(&mut dyn Write) -> io::Result<T>) -> io::Result<T> {
        let out = &mut *self.0;
        contained(|| f(out)).unwrap_or_else(|| {
            crate::stats::SINK_PANICS.fetch_add(1, Ordering::Relaxed);
            Err(io::Error::other("the output panicked"))
        })
    }
}

impl Write for Contained {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.call(|out| out.write(buf))
    }
    fn flush(&mut self) -> io::Result<()> {
        self.call(|out| out.flush())
    }
}

/// Reads the item at `at`; returns it and where the next one starts.
fn read_item<'r>(w: &'r [u64], at: usize, owned: &mut Vec<Box<str>>) -> (RawArg<'r>, usize) {
    let tag = w[at] & 0xff;
    let x = w.get(at + 1).copied().unwrap_or(0);
    let wide = || (u128::from(w[at + 1]) << 64) | u128::from(w[at + 2]);
    let arg = match tag {
        0 => RawArg::I8(x as i8),
        1 => RawArg::I16(x as i16),
        2 => RawArg::I32(x as i32),
        3 => RawArg::I64(x as i64),
        4 => RawArg::Isize(x as isize),
        5 => return (RawArg::I128(wide() as i128), at + 3),
        6 => RawArg::U8(x as u8),
        7 => RawArg::U16(x as u16),
        8 => RawArg::U32(x as u32),
        9 => RawArg::U64(x),
        10 => RawArg::Usize(x as usize),
        11 => return (RawArg::U128(wide()), at + 3),
        12 => RawArg::F32(RawFloat::new(f32::from_bits(x as u32))),
        13 => RawArg::F64(RawFloat::new(f64::from_bits(x))),
        14 => RawArg::Bool(x != 0),
        15 => RawArg::Char(char::from_u32(x as u32).unwrap_or('\u{fffd}')),
        _ => return read_text(w, at, tag, owned),
    };
    (arg, at + 2)
}

fn read_text<'r>(
    w: &'r [u64],
    at: usize,
    tag: u64,
    owned: &mut Vec<Box<str>>,
) -> (RawArg<'r>, usize) {
    let len = ((w[at] >> 8) & 0xffff_ffff) as usize;
    match tag {
        T_STATIC => {
            // SAFETY: written from a `&'static str` by `Item::put`.
            let s: &'static str = unsafe {
                std::str::from_utf8_unchecked(std::slice::from_raw_parts(
                    w[at + 1] as usize as *const u8,
                    len,
                ))
            };
            (RawArg::Str(s), at + 2)
        }
        T_HEAP | T_HEAP_DISPLAY | T_HEAP_DEBUG => {
            // SAFETY: `put_text` leaked this `Box<str>` of `len` bytes and
            // the ring holds the only pointer to it.
            let boxed: Box<str> = unsafe {
                Box::from_raw(
                    std::ptr::slice_from_raw_parts_mut(w[at + 1] as usize as *mut u8, len)
                        as *mut str,
                )
            };
            owned.push(boxed);
            let s: &str = owned.last().map_or("", |b| b);
            // SAFETY: the box lives in `owned` until the record is
            // formatted, and a box's contents never move.
            let s: &'r str = unsafe { &*(s as *const str) };
            (RawArg::Str(s), at + 2)
        }
        _ => {
            let words = len.div_ceil(8);
            let bytes = &w[at + 1..at + 1 + words];
            // SAFETY: `put_text` copied the bytes of a `str` here.
            let s = unsafe {
                std::str::from_utf8_unchecked(std::slice::from_raw_parts(
                    bytes.as_ptr() as *const u8,
                    len,
                ))
            };
            let _ = &owned;
            (RawArg::Str(s), at + 1 + words)
        }
    }
}

/// A field's raw argument back as the value it was.
fn arg_value<'a>(a: &RawArg<'a>) -> Value<'a> {
    match *a {
        RawArg::I64(n) => Value::I64(n),
        RawArg::U64(n) => Value::U64(n),
        RawArg::I128(n) => Value::I128(n),
        RawArg::U128(n) => Value::U128(n),
        RawArg::F64(n) => Value::F64(n.get()),
        RawArg::Bool(b) => Value::Bool(b),
        RawArg::Char(c) => Value::Char(c),
        RawArg::Str(s) => Value::Str(s),
        // Field values are only ever encoded from the kinds above.
        _ => Value::Str(""),
    }
}

/// Already rendered text that displays (and debug-prints) as itself.
struct Verbatim<'a>(&'a str);

impl std::fmt::Display for Verbatim<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

impl std::fmt::Debug for Verbatim<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

/// Empties a list and lets it hold items of another lifetime, keeping its
/// allocation (the collect runs in place: same size and alignment).
fn relifetime<'b, T: Relifetime<'b>>(mut v: Vec<T>) -> Vec<T::As> {
    v.clear();
    v.into_iter().map(|_| unreachable!("emptied")).collect()
}

/// The same type at another lifetime.
trait Relifetime<'b> {
    type As;
}
impl<'b> Relifetime<'b> for Field<'_> {
    type As = Field<'b>;
}
impl<'b> Relifetime<'b> for RawArg<'_> {
    type As = RawArg<'b>;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metadata::TEST_LOG;
    use crate::raw::Piece;
    use crate::sink::until;
    use std::time::SystemTime;

    /// 2026-11-30 in nanoseconds since the epoch: records carry their own
    /// time so a line through the ring can be compared with the same record
    /// written directly.
    const T0: u64 = 1_796_066_819_926_000_000;

    /// `ms` milliseconds after `T0`: apart in every layout's time.
    fn at(ms: u64) -> SystemTime {
        UNIX_EPOCH + Duration::from_nanos(T0 + ms * 1_000_000)
    }

    /// The output: shared bytes; the writer can be held inside `write`
    /// (`hold`) to let the rings fill, and made to fail or panic.
    #[derive(Clone, Default)]
    struct Out(Arc<OutState>);

    #[derive(Default)]
    struct OutState {
        bytes: Mutex<Vec<u8>>,
        held: Mutex<bool>,
        released: Condvar,
        /// Set while the writer waits inside `write`.
        waiting: AtomicBool,
        /// Writes that waited because the output was held.
        blocked: AtomicUsize,
        /// Writes let through while the output is held.
        passes: AtomicUsize,
        /// When set, the bytes the output still takes before it fails (a
        /// disk filling up in the middle of a line).
        room: Mutex<Option<usize>>,
        fail_writes: AtomicBool,
        panic_in_write: AtomicBool,
        panic_in_flush: AtomicBool,
        /// Run once, inside the next `write`, on the writer's thread.
        in_write: Mutex<Option<Box<dyn FnOnce() + Send>>>,
    }

    impl Write for Out {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            let s = &*self.0;
            if let Some(hook) = s.in_write.lock().unwrap().take() {
                hook();
            }
            let mut held = s.held.lock().unwrap();
            let mut counted = false;
            while *held {
                if s.passes.load(Ordering::SeqCst) > 0 {
                    s.passes.fetch_sub(1, Ordering::SeqCst);
                    break;
                }
                if !counted {
                    counted = true;
                    s.blocked.fetch_add(1, Ordering::SeqCst);
                }
                s.waiting.store(true, Ordering::SeqCst);
                held = s.released.wait(held).unwrap();
            }
            drop(held);
            s.waiting.store(false, Ordering::SeqCst);
            if s.fail_writes.load(Ordering::SeqCst) {
                return Err(io::Error::other("the disk is full"));
            }
            if s.panic_in_write.load(Ordering::SeqCst) {
                panic!("the output panics in write");
            }
            let mut room = s.room.lock().unwrap();
            let n = match *room {
                Some(0) => return Err(io::Error::other("no space left")),
                Some(r) => r.min(b.len()),
                None => b.len(),
            };
            if let Some(r) = room.as_mut() {
                *r -= n;
            }
            s.bytes.lock().unwrap().extend_from_slice(&b[..n]);
            Ok(n)
        }
        fn flush(&mut self) -> io::Result<()> {
            if self.0.panic_in_flush.load(Ordering::SeqCst) {
                panic!("the output panics in flush");
            }
            Ok(())
        }
    }

    impl Out {
        fn text(&self) -> String {
            String::from_utf8(self.0.bytes.lock().unwrap().clone()).unwrap()
        }
        fn lines(&self) -> Vec<String> {
            self.text().lines().map(str::to_owned).collect()
        }
        fn hold(&self) {
            *self.0.held.lock().unwrap() = true;
        }
        /// Lets `n` writes through, the output still held.
        fn pass(&self, n: usize) {
            let _held = self.0.held.lock().unwrap();
            self.0.passes.store(n, Ordering::SeqCst);
            self.0.released.notify_all();
        }
        fn release(&self) {
            *self.0.held.lock().unwrap() = false;
            self.0.released.notify_all();
        }
        /// Holds the writer inside `write`: returns once it waits there
        /// with one record (`first`) in its hands.
        fn hold_writer(&self, q: &RingQueue, first: &Record<'_>) {
            self.hold();
            q.emit(first);
            q.shared.wake_now();
            until("the writer waits in `write`", || {
                self.0.waiting.load(Ordering::SeqCst)
            });
        }
    }

    /// Joins `thread`, failing the test if it has not ended within ten
    /// seconds (a producer stuck waiting for room).
    fn joined<T>(thread: std::thread::JoinHandle<T>) -> T {
        until("the thread ends", || thread.is_finished());
        thread.join().unwrap()
    }

    /// A thread of its own that emits `plain(i)` for each `i` (so a caller
    /// that waits when it should not fails the test through `joined`).
    fn emit_from_a_thread(
        q: &Arc<RingQueue>,
        range: std::ops::RangeInclusive<u64>,
    ) -> std::thread::JoinHandle<()> {
        let q = q.clone();
        std::thread::spawn(move || {
            for i in range {
                q.emit(&plain(i));
            }
        })
    }

    /// A flush waits for a record its thread published just before, also
    /// when that record is the thread's first (its ring registered while
    /// the writer, just started, runs its first round).
    #[test]
    fn a_flush_waits_for_the_first_record_of_a_new_ring() {
        for i in 0..500 {
            let out = Out::default();
            let q = queue(&out);
            q.emit(&plain(i));
            assert!(flushed(&q));
            assert_eq!(q.shared().counts().0, 1, "written when flush returned");
        }
    }

    /// Waits for everything queued to be written; false if the writer
    /// does not answer within ten seconds.
    fn flushed(q: &RingQueue) -> bool {
        q.flush(Some(Duration::from_secs(10)))
    }

    fn queue_with(out: &Out, policy: Overflow, ring_bytes: usize, max_bytes: usize) -> RingQueue {
        RingQueue::start(
            Output::Bytes(Box::new(out.clone())),
            "rings test".into(),
            Format::Radical,
            policy,
            ring_bytes,
            1024,
            max_bytes,
        )
    }

    /// A queue whose writer takes at most `max_batch` records a round.
    fn queue_batched(out: &Out, max_batch: usize) -> RingQueue {
        RingQueue::start(
            Output::Bytes(Box::new(out.clone())),
            "rings test".into(),
            Format::Radical,
            Overflow::Block,
            64 * 1024,
            max_batch,
            1 << 20,
        )
    }

    fn queue(out: &Out) -> RingQueue {
        queue_with(out, Overflow::Block, 64 * 1024, 1 << 20)
    }

    /// The line `record` makes when its layout writes it directly.
    fn direct(record: &Record<'_>) -> String {
        let mut line = String::new();
        Format::Radical.write(record, &mut line);
        line
    }

    fn plain(i: u64) -> Record<'static> {
        Record::new(&TEST_LOG, Level::Info, format_args!("plain"), &[])
            .with_time(at(i))
            .with_thread(7)
    }

    static EVERY_KIND: [Piece; 21 * 2] = {
        let mut p = [Piece::Lit(" "); 42];
        let mut i = 0;
        while i < 21 {
            // Strings also as `{:?}`, the rest as `{}`.
            p[2 * i + 1] = if i >= 17 {
                Piece::Debug(i as u8)
            } else {
                Piece::Display(i as u8)
            };
            i += 1;
        }
        p
    };
    static EVERY_KIND_FORMAT: MessageFormat = MessageFormat::pieces(&EVERY_KIND);

    /// Every argument kind, at its extremes, and strings on both sides of
    /// the inline limit, in a raw message with every kind of typed field:
    /// the writer's line is the line the layout writes from the caller's
    /// record, and the long texts' bytes are given back.
    #[test]
    fn raw_records_are_written_as_the_caller_would_write_them() {
        let long = "L\"ong\n".repeat(60);
        let at_limit = "x".repeat(MAX_INLINE);
        let args = [
            RawArg::I8(i8::MIN),
            RawArg::I16(-300),
            RawArg::I32(i32::MIN),
            RawArg::I64(i64::MIN),
            RawArg::Isize(-2),
            RawArg::I128(i128::MIN),
            RawArg::U8(u8::MAX),
            RawArg::U16(u16::MAX),
            RawArg::U32(u32::MAX),
            RawArg::U64(u64::MAX),
            RawArg::Usize(usize::MAX),
            RawArg::U128(u128::MAX - 1),
            RawArg::F32(RawFloat::new(-1.5e-7f32)),
            RawArg::F64(RawFloat::new(0.1)),
            RawArg::Bool(true),
            RawArg::Bool(false),
            RawArg::Char('é'),
            RawArg::Str("short"),
            RawArg::Str(&long),
            RawArg::Str(&at_limit),
            RawArg::Str(""),
        ];
        let fields: [Field<'_>; 10] = [
            ("i", Value::I64(-1)),
            ("u", Value::U64(u64::MAX)),
            ("wi", Value::I128(i128::MIN + 1)),
            ("wu", Value::U128(u128::MAX)),
            ("f", Value::F64(-2.5)),
            ("b", Value::Bool(false)),
            ("c", Value::Char('\u{2028}')),
            ("s", Value::Str("a b")),
            ("long", Value::Str(&long)),
            ("empty", Value::Str("")),
        ];
        let out = Out::default();
        let q = queue(&out);
        let mut want = String::new();
        for (n, level) in Level::ALL.into_iter().enumerate() {
            EVERY_KIND_FORMAT.with_arguments(&args, &mut |m| {
                let record = Record::new(&TEST_LOG, level, m, &fields)
                    .with_time(at(n as u64))
                    .with_thread(3 + n as u64)
                    .with_raw(Some(RawMessage::new(&EVERY_KIND_FORMAT, &args)));
                assert!(record.raw().is_some(), "the record has a raw view");
                q.emit(&record);
                want.push_str(&direct(&record));
            });
        }
        assert!(flushed(&q));
        assert_eq!(out.text(), want);
        assert!(want.contains(&i128::MIN.to_string()) && want.contains("TRACE"));
        assert_eq!(q.heap_bytes(), 0, "the long texts' bytes are given back");
        assert_eq!(q.shared.counts(), (5, 0, 0));
        q.shut_down();
    }

    struct Shown(&'static str, usize);
    impl std::fmt::Display for Shown {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(&self.0.repeat(self.1))
        }
    }
    impl std::fmt::Debug for Shown {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "Shown({:?})", self.0.repeat(self.1))
        }
    }

    /// Messages that are not raw (a static text, a formatted one, short and
    /// long) and `Display`/`Debug` fields, short and long, mixed with typed
    /// ones, are rendered on the caller and written as the layout would.
    #[test]
    fn rendered_records_are_written_as_the_caller_would_write_them() {
        let out = Out::default();
        let q = queue(&out);
        let (short, long) = (Shown("ab", 2), Shown("xyz\n", 100));
        let fields: [Field<'_>; 6] = [
            ("d", Value::Display(&short)),
            ("n", Value::U64(42)),
            ("dl", Value::Display(&long)),
            ("g", Value::Debug(&short)),
            ("gl", Value::Debug(&long)),
            ("s", Value::Str("typed")),
        ];
        let mut want = String::new();
        let mut emit = |q: &RingQueue, m: std::fmt::Arguments<'_>, fields: &[Field<'_>], i| {
            let record = Record::new(&TEST_LOG, Level::Warn, m, fields)
                .with_time(at(i))
                .with_thread(9);
            q.emit(&record);
            want.push_str(&direct(&record));
        };
        emit(&q, format_args!("a static message"), &fields, 1);
        emit(&q, format_args!("formatted {}", short), &fields, 2);
        emit(&q, format_args!("long {}", long), &[], 3);
        emit(&q, format_args!("long {:?}", long), &fields[2..3], 4);
        assert!(flushed(&q));
        assert_eq!(out.text(), want);
        assert_eq!(out.lines().len(), 4);
        assert_eq!(q.heap_bytes(), 0);
        q.shut_down();
    }

    /// A raw message with a `Display` field cannot be copied as words: it
    /// is rendered, and reads the same.
    #[test]
    fn a_raw_message_with_a_rendered_field_is_rendered() {
        static PIECES: [Piece; 2] = [Piece::Lit("n="), Piece::Display(0)];
        static FORMAT: MessageFormat = MessageFormat::pieces(&PIECES);
        let out = Out::default();
        let q = queue(&out);
        let args = [RawArg::U32(5)];
        let shown = Shown("v", 3);
        let mixed: [Field<'_>; 2] = [("k", Value::Display(&shown)), ("t", Value::Bool(true))];
        let only_rendered: [Field<'_>; 1] = [("k", Value::Debug(&shown))];
        // Copied as words: the shortest typed field, an empty string.
        let only_empty: [Field<'_>; 1] = [("e", Value::Str(""))];
        let mut want = String::new();
        for fields in [&mixed[..], &only_rendered, &only_empty] {
            FORMAT.with_arguments(&args, &mut |m| {
                let record = Record::new(&TEST_LOG, Level::Debug, m, fields)
                    .with_time(at(0))
                    .with_thread(2)
                    .with_raw(Some(RawMessage::new(&FORMAT, &args)));
                q.emit(&record);
                want.push_str(&direct(&record));
            });
        }
        assert!(flushed(&q));
        assert_eq!(out.text(), want);
        assert!(want.contains("n=5") && want.contains("k=vvv"), "{want}");
        assert_eq!(q.shared.counts(), (3, 0, 0));
        q.shut_down();
    }

    /// Without a thread given, a record carries the number of the thread
    /// that logged it: each thread's ring is stamped with its own.
    #[test]
    fn each_threads_records_carry_its_number() {
        let out = Out::default();
        let q = Arc::new(queue(&out));
        let mut want = Vec::new();
        for i in 0..3u64 {
            let q = q.clone();
            let line = joined(std::thread::spawn(move || {
                let record =
                    Record::new(&TEST_LOG, Level::Info, format_args!("from a thread"), &[])
                        .with_time(at(i));
                q.emit(&record);
                (crate::thread_number(), direct(&record))
            }));
            want.push(line);
        }
        assert!(flushed(&q));
        let numbers: Vec<u64> = want.iter().map(|(n, _)| *n).collect();
        assert!(numbers[0] != numbers[1] && numbers[1] != numbers[2]);
        let want: String = want.into_iter().map(|(_, l)| l).collect();
        assert_eq!(out.text(), want);
        q.shut_down();
    }

    /// The writer merges the threads' rings oldest record first, whatever
    /// ring each record is in.
    #[test]
    fn records_of_several_threads_are_written_oldest_first() {
        let out = Out::default();
        let q = Arc::new(queue(&out));
        out.hold_writer(&q, &plain(0));
        // Both alive until both have logged: each has a ring of its own.
        let both = Arc::new(std::sync::Barrier::new(2));
        let threads: Vec<_> = [[1u64, 4, 5], [2, 3, 6]]
            .into_iter()
            .map(|times| {
                let (q, both) = (q.clone(), both.clone());
                std::thread::spawn(move || {
                    for t in times {
                        q.emit(&plain(t));
                    }
                    both.wait();
                })
            })
            .collect();
        for t in threads {
            joined(t);
        }
        out.release();
        assert!(flushed(&q));
        let want: String = (0..7).map(|i| direct(&plain(i))).collect();
        assert_eq!(out.text(), want);
        q.shut_down();
    }

    /// One thread logging into two sinks: each record reaches its own sink
    /// (the thread keeps one ring per sink and remembers the last one).
    #[test]
    fn one_thread_alternating_between_sinks_keeps_them_apart() {
        let (a, b) = (Out::default(), Out::default());
        let (qa, qb) = (queue(&a), queue(&b));
        let mut want = (String::new(), String::new());
        for i in 0..4 {
            let record = plain(i);
            if i % 2 == 0 {
                qa.emit(&record);
                want.0.push_str(&direct(&record));
            } else {
                qb.emit(&record);
                want.1.push_str(&direct(&record));
            }
        }
        assert!(flushed(&qa) && flushed(&qb));
        assert_eq!((a.text(), b.text()), want);
        // One ring per sink for the thread, not one per switch.
        assert_eq!(lock(&qa.shared.rings).len(), 1);
        assert_eq!(lock(&qb.shared.rings).len(), 1);
        qa.shut_down();
        qb.shut_down();
    }

    /// Under `Drop`, a full ring drops the new record and counts it, and
    /// the writer writes one line saying how many were lost; written and
    /// dropped add up to what was emitted.
    #[test]
    fn a_full_ring_under_drop_counts_and_announces_the_loss() {
        let out = Out::default();
        let q = Arc::new(queue_with(&out, Overflow::Drop, 1024, 1 << 20));
        out.hold_writer(&q, &plain(0));
        joined(emit_from_a_thread(&q, 1..=100));
        let (_, dropped, _) = q.shared.counts();
        assert!(dropped > 0, "a 1 KiB ring cannot hold 100 records");
        assert_eq!(q.left(), 101 - dropped, "queued and in the writer's hands");
        out.release();
        assert!(flushed(&q));
        let (written, dropped_after, failed) = q.shared.counts();
        assert_eq!(dropped_after, dropped);
        assert_eq!((written + dropped, failed), (101, 0));
        let lines = out.lines();
        assert_eq!(
            lines.len() as u64,
            written + 1,
            "the records and one notice"
        );
        let notice = format!("{dropped} records dropped");
        assert_eq!(lines.iter().filter(|l| l.contains(&notice)).count(), 1);
        assert_eq!(q.left(), 0);
        // A second loss is announced with its own count, not the total.
        out.hold_writer(&q, &plain(101));
        joined(emit_from_a_thread(&q, 102..=201));
        let again = q.shared.counts().1 - dropped;
        assert!(again > 0);
        out.release();
        assert!(flushed(&q));
        let notices: Vec<String> = out
            .lines()
            .into_iter()
            .filter(|l| l.contains("records dropped"))
            .collect();
        assert_eq!(notices.len(), 2, "{notices:?}");
        assert!(
            notices[1].contains(&format!(": {again} records dropped")),
            "{notices:?}"
        );
        q.shut_down();
    }

    /// Under `Block`, a full ring makes its thread wait for the writer:
    /// every record is written, in order.
    #[test]
    fn a_full_ring_under_block_waits_and_loses_nothing() {
        let out = Out::default();
        let q = Arc::new(queue_with(&out, Overflow::Block, 1024, 1 << 20));
        out.hold_writer(&q, &plain(0));
        let producer = emit_from_a_thread(&q, 1..=200);
        // Some time for the producer to fill its ring and wait.
        std::thread::sleep(Duration::from_millis(20));
        out.release();
        joined(producer);
        assert!(flushed(&q));
        let want: String = (0..=200).map(|i| direct(&plain(i))).collect();
        assert_eq!(out.text(), want);
        assert_eq!(q.shared.counts(), (201, 0, 0));
        q.shut_down();
    }

    static WIDE: [Piece; 40] = {
        let mut p = [Piece::Display(0); 40];
        let mut i = 0;
        while i < 40 {
            p[i] = Piece::Display(i as u8);
            i += 1;
        }
        p
    };
    static WIDE_FORMAT: MessageFormat = MessageFormat::pieces(&WIDE);

    /// A record larger than half a thread's ring goes through a heap block
    /// of its own, in order, under `Block` and under `Drop` (with the byte
    /// budget free), and its bytes are given back once it is written.
    #[test]
    fn a_record_larger_than_half_a_ring_is_written_whole_in_order() {
        for policy in [Overflow::Block, Overflow::Drop] {
            let out = Out::default();
            let q = queue_with(&out, policy, 1024, 1 << 20);
            // 20 arguments, 64 words: exactly half, in the ring.
            let small: &[RawArg<'_>] = &[RawArg::U128(2); 20];
            // 40 arguments of 3 words: 124 words, more than half of 128.
            let big: &[RawArg<'_>] = &[RawArg::U128(1); 40];
            for (i, args) in [small, big, small].into_iter().enumerate() {
                WIDE_FORMAT.with_arguments(args, &mut |m| {
                    let record = Record::new(&TEST_LOG, Level::Info, m, &[])
                        .with_time(at(i as u64))
                        .with_raw(Some(RawMessage::new(&WIDE_FORMAT, args)));
                    q.emit(&record);
                });
                // Under `Drop` a full ring would drop the next record: the
                // writer empties it first.
                if policy == Overflow::Drop {
                    assert!(flushed(&q));
                }
            }
            assert!(flushed(&q));
            assert_eq!(q.shared.counts(), (3, 0, 0), "{policy:?}");
            assert_eq!(q.heap_bytes(), 0, "the block's bytes are given back");
            let lines = out.lines();
            assert_eq!(lines.len(), 3, "{lines:?}");
            assert!(lines[0].ends_with(&"2".repeat(20)), "{lines:?}");
            assert!(lines[1].ends_with(&"1".repeat(40)), "{lines:?}");
            assert!(lines[2].ends_with(&"2".repeat(20)), "{lines:?}");
            q.shut_down();
        }
    }

    fn long_text(q: &RingQueue, text: &str, i: u64) {
        static PIECES: [Piece; 1] = [Piece::Display(0)];
        static FORMAT: MessageFormat = MessageFormat::pieces(&PIECES);
        let args = [RawArg::Str(text)];
        FORMAT.with_arguments(&args, &mut |m| {
            let record = Record::new(&TEST_LOG, Level::Info, m, &[])
                .with_time(at(i))
                .with_raw(Some(RawMessage::new(&FORMAT, &args)));
            q.emit(&record);
        });
    }

    /// Long texts are bounded by the byte budget: under `Drop`, a record
    /// whose text does not fit is dropped and counted; a text over the
    /// whole budget still goes through when nothing else is queued.
    #[test]
    fn long_texts_are_bounded_by_the_byte_budget_under_drop() {
        let out = Out::default();
        let q = Arc::new(queue_with(&out, Overflow::Drop, 64 * 1024, 1000));
        assert_eq!(q.max_bytes(), 1000);
        long_text(&q, &"a".repeat(2000), 0);
        assert!(flushed(&q), "alone, a text over the budget is taken");
        assert_eq!(q.shared.counts(), (1, 0, 0));
        out.hold_writer(&q, &plain(1));
        let text = "b".repeat(300);
        let producer = {
            let (q, text) = (q.clone(), text.clone());
            std::thread::spawn(move || {
                for i in 2..6 {
                    long_text(&q, &text, i);
                }
            })
        };
        joined(producer);
        assert_eq!(q.heap_bytes(), 900, "three fit in 1000 bytes");
        assert_eq!(q.shared.counts().1, 1, "the fourth is dropped");
        out.release();
        assert!(flushed(&q));
        assert_eq!(q.heap_bytes(), 0);
        assert_eq!(q.shared.counts(), (5, 1, 0));
        let lines = out.lines();
        assert_eq!(lines.iter().filter(|l| l.ends_with(&text)).count(), 3);
        q.shut_down();
    }

    /// Under `Block`, a record whose long text is over the budget waits for
    /// the writer to give bytes back; nothing is dropped.
    #[test]
    fn long_texts_wait_for_the_byte_budget_under_block() {
        let out = Out::default();
        let q = Arc::new(queue_with(&out, Overflow::Block, 64 * 1024, 1000));
        out.hold_writer(&q, &plain(0));
        let producer = {
            let q = q.clone();
            std::thread::spawn(move || {
                for i in 1..=6 {
                    long_text(&q, &"c".repeat(400), i);
                }
            })
        };
        std::thread::sleep(Duration::from_millis(20));
        assert!(q.heap_bytes() <= 1000, "{} bytes queued", q.heap_bytes());
        out.release();
        joined(producer);
        assert!(flushed(&q));
        assert_eq!(q.shared.counts(), (7, 0, 0));
        assert_eq!(q.heap_bytes(), 0);
        q.shut_down();
    }

    /// `flush` with a timeout gives up (false) while the writer is stuck,
    /// and succeeds once it moves; `close` writes what came before it and
    /// drops, counting them, the records that come after.
    #[test]
    fn flush_times_out_on_a_stuck_writer_and_close_drops_what_follows() {
        let out = Out::default();
        let q = queue(&out);
        out.hold_writer(&q, &plain(0));
        assert!(!q.flush(Some(Duration::from_millis(20))));
        out.release();
        assert!(q.flush(Some(Duration::from_secs(60))));
        q.emit(&plain(1));
        assert!(q.close(Some(Duration::from_secs(60))));
        for i in 2..5 {
            q.emit(&plain(i));
        }
        assert!(q.flush(Some(Duration::from_secs(60))));
        assert_eq!(q.shared.counts(), (2, 3, 0));
        q.shut_down();
        until("the writer stops", || {
            !q.shared.writer_alive.load(Ordering::Acquire)
        });
        // Not even the notice of the drops: a line started as the process
        // ends would be cut off.
        let want: String = (0..2).map(|i| direct(&plain(i))).collect();
        assert_eq!(out.text(), want, "nothing is written after the close");
    }

    /// A failing output: its lines are counted as failed, not written, and
    /// the caller never sees the error; a panic in the output's `write` or
    /// `flush` is contained and counted the same way, and the writer goes
    /// on with the next records.
    #[test]
    fn failed_writes_and_a_panicking_flush_are_counted_not_raised() {
        let out = Out::default();
        let q = queue(&out);
        out.0.fail_writes.store(true, Ordering::SeqCst);
        for i in 0..3 {
            q.emit(&plain(i));
        }
        assert!(flushed(&q));
        assert_eq!(q.shared.counts(), (0, 0, 3));
        out.0.fail_writes.store(false, Ordering::SeqCst);
        out.0.panic_in_flush.store(true, Ordering::SeqCst);
        q.emit(&plain(3));
        assert!(flushed(&q));
        assert_eq!(q.shared.counts(), (0, 0, 4));
        assert_eq!(q.left(), 0, "nothing is left in the writer's hands");
        out.0.panic_in_flush.store(false, Ordering::SeqCst);
        q.emit(&plain(4));
        assert!(flushed(&q));
        assert_eq!(q.shared.counts(), (1, 0, 4));
        // A panic in `write` too: the writer survives it.
        out.0.panic_in_write.store(true, Ordering::SeqCst);
        q.emit(&plain(5));
        assert!(flushed(&q), "the writer is still there");
        assert_eq!(q.shared.counts(), (1, 0, 5));
        out.0.panic_in_write.store(false, Ordering::SeqCst);
        q.emit(&plain(6));
        assert!(flushed(&q));
        assert_eq!(q.shared.counts(), (2, 0, 5));
        // The line whose flush panicked was handed over (it is counted as
        // failed: nobody knows whether it is stored); the one whose write
        // panicked was not.
        let want: String = [3, 4, 6].into_iter().map(|i| direct(&plain(i))).collect();
        assert_eq!(out.text(), want);
        q.shut_down();
    }

    /// Once shut down, the writer drains what was queued and stops; later
    /// records are dropped and counted, and a flush returns at once.
    #[test]
    fn a_shut_down_writer_drains_then_records_are_dropped() {
        let out = Out::default();
        let q = queue(&out);
        for i in 0..3 {
            q.emit(&plain(i));
        }
        q.shut_down();
        until("the writer stops", || {
            !q.shared.writer_alive.load(Ordering::Acquire)
        });
        assert_eq!(out.lines().len(), 3);
        q.emit(&plain(3));
        assert!(flushed(&q));
        assert_eq!(q.shared.counts(), (3, 1, 0));
    }

    /// A thread that logs and exits hands its ring back: the writer writes
    /// its records, and the next thread takes the ring over (no new one),
    /// its records carrying their own thread's number.
    #[test]
    fn an_exited_threads_ring_goes_to_the_next_thread() {
        let out = Out::default();
        let q = Arc::new(queue(&out));
        let mut numbers = Vec::new();
        for round in 0..2 {
            let q = q.clone();
            numbers.push(joined(std::thread::spawn(move || {
                q.emit(&plain(round).with_thread(0));
                crate::thread_number()
            })));
        }
        assert!(flushed(&q));
        let lines = out.lines();
        assert_eq!(lines.len(), 2);
        for (line, n) in lines.iter().zip(&numbers) {
            assert!(line.contains(&format!(": {n:<5} :")), "thread {n}: {line}");
        }
        assert_eq!(lock(&q.shared.rings).len(), 1, "one ring, reused");
        q.shut_down();
    }

    /// While the writer is stuck, threads that log and exit one after the
    /// other share one ring: memory does not grow with the threads, and
    /// what the ring cannot hold is dropped and counted under `Drop`.
    #[test]
    fn threads_exiting_behind_a_stuck_writer_reuse_one_ring() {
        let out = Out::default();
        let q = Arc::new(queue_with(&out, Overflow::Drop, 1024, 1 << 20));
        out.hold_writer(&q, &plain(0));
        for i in 1..=200 {
            joined(emit_from_a_thread(&q, i..=i));
        }
        assert_eq!(
            lock(&q.shared.rings).len(),
            2,
            "the test thread's and one for all the others"
        );
        out.release();
        assert!(flushed(&q));
        let (written, dropped, failed) = q.shared.counts();
        assert!(dropped > 0, "a 1 KiB ring cannot hold 200 records");
        assert_eq!((written + dropped, failed), (201, 0));
        q.shut_down();
    }

    /// Empty rings of exited threads are kept for reuse only within the
    /// byte budget: with a budget smaller than one ring, none is kept.
    #[test]
    fn empty_rings_of_exited_threads_beyond_the_budget_are_freed() {
        let out = Out::default();
        let q = Arc::new(queue_with(&out, Overflow::Block, 64 * 1024, 1000));
        joined(emit_from_a_thread(&q, 0..=2));
        // Two rounds: the second starts after the first let go of the ring.
        assert!(flushed(&q) && flushed(&q));
        assert_eq!(out.lines().len(), 3);
        assert_eq!(lock(&q.shared.rings).len(), 0, "the ring is freed");
        q.shut_down();
    }

    /// A record logged while the thread's locals are torn down (from a
    /// destructor that runs after the thread's rings are gone) goes to the
    /// sink's shared ring and is written with the thread's number.
    #[test]
    fn a_record_from_a_thread_local_destructor_is_written() {
        struct LogsOnDrop(Arc<RingQueue>);
        impl Drop for LogsOnDrop {
            fn drop(&mut self) {
                let record = Record::new(&TEST_LOG, Level::Error, format_args!("at exit"), &[])
                    .with_time(at(1));
                self.0.emit(&record);
            }
        }
        thread_local! {
            static AT_EXIT: RefCell<Option<LogsOnDrop>> = const { RefCell::new(None) };
        }
        let out = Out::default();
        let q = Arc::new(queue(&out));
        let number = {
            let q = q.clone();
            joined(std::thread::spawn(move || {
                // Registered before the rings, so dropped after them.
                AT_EXIT.with(|a| *a.borrow_mut() = Some(LogsOnDrop(q.clone())));
                q.emit(&plain(0));
                crate::thread_number()
            }))
        };
        assert!(flushed(&q));
        let lines = out.lines();
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(lines[1].contains("at exit"), "{lines:?}");
        assert!(
            lines[1].contains(&format!(": {number:<5} :")),
            "thread {number} in {}",
            lines[1]
        );
        assert_eq!(q.shared.counts(), (2, 0, 0));
        q.shut_down();
    }

    /// The writer thread logging into its own sink (its output's `write`
    /// logs, say) must never wait for itself: under `Block`, a full ring or
    /// a spent byte budget drops the writer's record and counts it, where a
    /// caller would wait.
    #[test]
    fn the_writer_logging_into_its_own_full_sink_drops_instead_of_waiting() {
        let out = Out::default();
        let q = Arc::new(queue_with(&out, Overflow::Block, 1024, 1000));
        {
            let q = q.clone();
            *out.0.in_write.lock().unwrap() = Some(Box::new(move || {
                assert!(on_writer());
                // Two long texts fit the budget, the third does not.
                for i in 1..=3 {
                    long_text(&q, &"w".repeat(400), i);
                }
                assert_eq!(q.shared.counts().1, 1, "dropped at once");
                // Then the ring fills.
                for i in 4..=103 {
                    q.emit(&plain(i));
                }
            }));
        }
        q.emit(&plain(0));
        // The second flush covers what the writer logged after the first.
        assert!(flushed(&q) && flushed(&q), "the writer waited for itself");
        let (written, dropped, failed) = q.shared.counts();
        assert!(dropped > 0, "a 1 KiB ring cannot hold 100 records");
        assert_eq!((written + dropped, failed), (104, 0));
        assert_eq!(q.heap_bytes(), 0);
        let lines = out.lines();
        assert_eq!(
            lines.len() as u64,
            written + 1,
            "the records and one notice"
        );
        q.shut_down();
    }

    /// A flush covers every record published before it even when they take
    /// the writer several rounds (batches of one record here): it is not
    /// answered while some are still queued.
    #[test]
    fn a_flush_waits_for_every_batch_published_before_it() {
        let out = Out::default();
        let q = Arc::new(queue_batched(&out, 1));
        out.hold_writer(&q, &plain(0));
        for i in 1..=3 {
            q.emit(&plain(i));
        }
        let flusher = {
            let q = q.clone();
            std::thread::spawn(move || flushed(&q))
        };
        until("the flush is requested", || {
            q.shared.flush_requested.load(Ordering::SeqCst) == 1
        });
        // Two writes through (record 0's, record 1's round), then the
        // writer is held again in record 2's, two records still queued.
        out.pass(2);
        until("the writer is held again", || {
            out.0.blocked.load(Ordering::SeqCst) == 2
        });
        assert_eq!(
            *lock(&q.shared.flushed),
            0,
            "flush answered with records queued"
        );
        out.release();
        assert!(joined(flusher));
        assert_eq!(out.lines().len(), 4);
        q.shut_down();
    }

    /// Shutting down writes everything queued first, however many rounds
    /// that takes.
    #[test]
    fn shutting_down_drains_every_batch() {
        let out = Out::default();
        let q = queue_batched(&out, 1);
        out.hold_writer(&q, &plain(0));
        for i in 1..=10 {
            q.emit(&plain(i));
        }
        q.shut_down();
        out.release();
        until("the writer stops", || {
            !q.shared.writer_alive.load(Ordering::Acquire)
        });
        let want: String = (0..=10).map(|i| direct(&plain(i))).collect();
        assert_eq!(out.text(), want);
        assert_eq!(q.shared.counts(), (11, 0, 0));
    }

    /// A write that fails in the middle of a line tears it: the record
    /// counts as failed, and once the output takes bytes again the rest of
    /// that line goes first, the record counts as written after all, and
    /// no later line is glued to the fragment.
    #[test]
    fn a_line_torn_by_a_full_disk_is_completed_and_counted_written() {
        let out = Out::default();
        let q = queue(&out);
        *out.0.room.lock().unwrap() = Some(10);
        q.emit(&plain(0));
        assert!(flushed(&q));
        assert_eq!(q.shared.counts(), (0, 0, 1));
        assert_eq!(out.text().len(), 10, "a fragment of the line");
        *out.0.room.lock().unwrap() = None;
        q.emit(&plain(1));
        assert!(flushed(&q));
        assert_eq!(q.shared.counts(), (2, 0, 0));
        assert_eq!(out.text(), direct(&plain(0)) + &direct(&plain(1)));
        q.shut_down();
    }
}
