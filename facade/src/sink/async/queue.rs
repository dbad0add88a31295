//! The callers' side of an [`AsyncSink`](super::AsyncSink): each record
//! is encoded (`codec`) into its thread's ring (`lanes`, `ring`), waiting
//! or dropping when the ring or the byte budget is full. Starting the
//! writer, flush, close and shutdown are here too.
//!
//! # What the caller copies
//! A message with a raw view ([`RawMessage`](crate::record::raw::RawMessage):
//! every argument an integer, float, `bool`, `char` or string) is copied as
//! typed words and formatted on the writer; the commonest shape (no fields,
//! no span, one-word arguments) in one pass (`try_push_plain`). Any other
//! message is rendered on the caller, and so are `Display`/`Debug` fields
//! (they borrow the caller's data); typed fields are copied. A string over
//! `MAX_INLINE` bytes moves to the heap, and a record over half a ring
//! into a heap block of its own, both within `max_bytes`. A record emitted
//! while its thread's locals are torn down goes to a shared ring under a
//! lock (`orphan`).
//!
//! Statics owned here: `NEXT_ID` (sink identities, never reused).

use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::codec::*;
use super::lanes::{lane, LANES};
use super::ring::Ring;
use super::shared::{lock, RingShared};
use super::wake::backoff;
use super::writer::{Output, RingWriter};
use super::{on_writer, Overflow};
use crate::format::Format;
use crate::record::raw::RawMessage;
use crate::record::value::Value;
use crate::record::Record;

/// Sink identities, so a thread's ring of a dropped sink is never mistaken
/// for a new sink's at the same address.
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// The callers' side, owned by the [`AsyncSink`](super::AsyncSink).
pub(crate) struct RingQueue {
    pub(super) shared: Arc<RingShared>,
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
            ring_words: ring_bytes / 8,
            policy,
            writer_alive: AtomicBool::new(true),
            max_bytes,
            ..RingShared::default()
        });
        crate::os::clock::recalibrate();
        let for_writer = shared.clone();
        let spawned = std::thread::Builder::new()
            .name("elide-writer".to_owned())
            // Made there: its lists hold borrowed values, so it never
            // crosses threads.
            .spawn(move || RingWriter::new(for_writer, out, format, max_batch).run());
        match spawned {
            Ok(h) => *lock(&shared.writer) = Some(h.thread().clone()),
            Err(e) => {
                shared.writer_alive.store(false, Ordering::Relaxed);
                crate::stats::report_write_error(&format!("{} (writer thread)", shared.name), &e);
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
        // The ring this thread used last, if it is this sink's; anything
        // else out of line, so the common path calls nothing before it
        // pushes.
        let last = LANES.try_with(|l| (l.last_id.get() == shared.id).then(|| l.last.get()));
        match last {
            // SAFETY: the pointer is kept alive by the thread's `Lanes`,
            // and this thread is the ring's only producer.
            Ok(Some(ring)) => unsafe { self.push(&*ring, record, (*ring).taken_over.get()) },
            _ => self.emit_other_lane(record),
        }
    }

    /// [`emit`](Self::emit) when this thread's last ring is another sink's
    /// (or it has none yet), or its locals are gone: then into the shared
    /// orphan ring, under its lock.
    #[cold]
    #[inline(never)]
    fn emit_other_lane(&self, record: &Record<'_>) {
        if let Ok(ring) = LANES.try_with(|l| lane(l, &self.shared)) {
            // SAFETY: as in `emit`.
            return unsafe { self.push(&*ring, record, (*ring).taken_over.get()) };
        }
        let Some(mut orphan) = crate::os::process::lock(&self.shared.orphan) else {
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

    /// Encodes `record` into `ring`, waiting for room under `Block`;
    /// `carry_thread`: the record carries its thread's number (the ring was
    /// another thread's, or is the orphans').
    ///
    /// # Safety
    /// The caller must be `ring`'s only producer.
    #[inline]
    unsafe fn push(&self, ring: &Ring, record: &Record<'_>, carry_thread: bool) {
        if self.shared.names {
            // SAFETY: forwarded from the caller.
            return unsafe { self.push_named(ring, record, carry_thread) };
        }
        // SAFETY: forwarded from the caller.
        unsafe { self.push_as(ring, record, carry_thread, None) }
    }

    /// `push` with the thread's name, for a wrapped sink.
    #[cold]
    #[inline(never)]
    unsafe fn push_named(&self, ring: &Ring, record: &Record<'_>, carry_thread: bool) {
        record.with_thread_name_str(|name| {
            // SAFETY: forwarded from the caller.
            unsafe { self.push_as(ring, record, carry_thread, name) }
        });
    }

    /// # Safety
    /// The caller must be `ring`'s only producer.
    #[inline]
    unsafe fn push_as(
        &self,
        ring: &Ring,
        record: &Record<'_>,
        carry_thread: bool,
        name: Option<&str>,
    ) {
        let shared = &*self.shared;
        if !shared.writer_alive.load(Ordering::Relaxed) {
            shared.dropped.fetch_add(1, Ordering::Relaxed);
            return;
        }
        let time = record.time_ns_or(crate::os::clock::now_ns);
        if !carry_thread && !shared.names {
            // SAFETY: forwarded from the caller.
            if unsafe { self.try_push_plain(ring, record, time) } {
                return;
            }
        }
        let thread = if carry_thread || record.thread_override() != 0 {
            Some(record.thread_id())
        } else {
            None
        };
        let extras = Extras {
            span: record.span_owned(),
            // Only a wrapped sink (an OTLP exporter) reads the scope.
            scope: shared.names.then(|| record.scope_ids()).flatten(),
        };
        // Sized in one pass each; a borrowed argument or a field to render
        // sends the record the cold way.
        let typed = record.args().raw().and_then(|raw| {
            Some((
                raw,
                args_size(raw.args())?,
                typed_fields_size(record.fields())?,
            ))
        });
        match typed {
            Some((raw, (args_words, args_heap), (fields_words, fields_heap))) => {
                let args = raw.args();
                let len = 4
                    + thread.is_some() as usize
                    + name_len(name)
                    + args_words
                    + fields_words
                    + extras.len();
                let heap = args_heap + fields_heap + name.map_or(0, |n| text_heap(n.len()));
                let typed = Typed {
                    head: header(len, record, args.len(), RAW, thread, name),
                    time,
                    thread,
                    name,
                    record,
                    raw,
                    extras: &extras,
                };
                // SAFETY: forwarded from the caller.
                unsafe { self.push_with(ring, len, heap, typed) }
            }
            // SAFETY: forwarded from the caller.
            _ => unsafe { self.push_rendered(ring, record, time, thread, name, &extras) },
        }
    }

    /// The common record (a raw message, no fields, no span, the caller's
    /// own thread) without the general way's sizing: written in one pass
    /// when every argument is a one-word scalar, else (the room abandoned
    /// unpublished) by `push_sized`. False (nothing published) for a long
    /// text, a borrowed argument or a full ring: the general way then.
    ///
    /// # Safety
    /// The caller must be `ring`'s only producer.
    #[inline(always)]
    unsafe fn try_push_plain(&self, ring: &Ring, record: &Record<'_>, time: u64) -> bool {
        let Some(raw) = record.args().raw() else {
            return false;
        };
        if !record.fields().is_empty() || record.thread_override() != 0 {
            return false;
        }
        let args = raw.args();
        let len = 4 + 2 * args.len();
        if len > ring.words() / 2 || !record.out_of_spans() {
            return false;
        }
        // SAFETY: forwarded from the caller; the slice is published (or
        // dropped) before anything else reserves.
        let Some((w, end)) = (unsafe { ring.reserve(len) }) else {
            return false;
        };
        if put_scalars(w, plain_head(len, record, raw, time), args) {
            ring.publish(end);
            self.wake_if_filling(ring);
            return true;
        }
        // SAFETY: as above.
        unsafe { self.push_sized(ring, record, raw, time) }
    }

    /// [`try_push_plain`](Self::try_push_plain) once an argument was not a
    /// one-word scalar: sized, then written, if it holds no long text.
    /// (Not through `Typed` and `push_with`, nor the general way: measured,
    /// 24 and 60 instructions more per record with a text argument.)
    ///
    /// # Safety
    /// The caller must be `ring`'s only producer.
    // Cold for the layout of the all-scalar path (measured: 7 instructions
    // less there), not because texts are rare.
    #[cold]
    #[inline(never)]
    unsafe fn push_sized(
        &self,
        ring: &Ring,
        record: &Record<'_>,
        raw: &RawMessage<'_>,
        time: u64,
    ) -> bool {
        let args = raw.args();
        let Some((words, 0)) = args_size(args) else {
            return false;
        };
        let len = 4 + words;
        if len > ring.words() / 2 {
            return false;
        }
        // SAFETY: forwarded from the caller.
        let Some((w, end)) = (unsafe { ring.reserve(len) }) else {
            return false;
        };
        w[..4].copy_from_slice(&plain_head(len, record, raw, time));
        let mut at = 4;
        for a in args {
            at = put_arg(w, at, a);
        }
        debug_assert_eq!(at, len);
        ring.publish(end);
        self.wake_if_filling(ring);
        true
    }

    /// Wakes the writer if it sleeps while `ring` fills up (over half its
    /// words, by the producer's last look at `head`).
    #[inline(always)]
    fn wake_if_filling(&self, ring: &Ring) {
        if ring.filling() && self.shared.sleeping.load(Ordering::Relaxed) {
            self.shared.wake();
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
        extras: &Extras,
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
        let mut len =
            4 + usize::from(thread.is_some()) + name_len(name) + message.len() + extras.len();
        let mut heap = text_heap(name.map_or(0, str::len));
        if let Item::Text(a, b) = message {
            heap += text_heap(b - a);
        }
        for ((_, v), &(a, b)) in record.fields().iter().zip(&ranges) {
            let (words, bytes) = match value_arg(v) {
                Some(x) => (arg_len(&x), arg_heap(&x)),
                None => (text_words(b - a), text_heap(b - a)),
            };
            len += 2 + words;
            heap += bytes;
        }
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
            extras.put(w, at);
        };
        // SAFETY: forwarded from the caller.
        unsafe { self.push_with(ring, len, heap, enc) }
    }

    /// Publishes a record of `len` words, holding `heap` bytes of long
    /// texts: in line if it fits at once, else the cold way, which waits or
    /// drops when the ring or the byte budget is full.
    ///
    /// # Safety
    /// The caller must be `ring`'s only producer.
    #[inline]
    unsafe fn push_with(&self, ring: &Ring, len: usize, heap: usize, enc: impl Encode) {
        if heap == 0 && len <= ring.words() / 2 {
            // SAFETY: forwarded from the caller; the slice is published
            // before anything else reserves.
            if let Some((words, end)) = unsafe { ring.reserve(len) } {
                enc.put(words);
                ring.publish(end);
                self.wake_if_filling(ring);
                return;
            }
        }
        // SAFETY: forwarded from the caller.
        unsafe { self.push_slow(ring, len, heap, enc) }
    }

    /// [`push_with`](Self::push_with) for a record that is large, holds
    /// long texts or finds the ring full.
    ///
    /// # Safety
    /// The caller must be `ring`'s only producer.
    #[cold]
    #[inline(never)]
    unsafe fn push_slow(&self, ring: &Ring, len: usize, heap: usize, enc: impl Encode) {
        let enc = |w: &mut [u64]| enc.put(w);
        if len > ring.words() / 2 {
            // SAFETY: forwarded from the caller.
            return unsafe { self.push_big(ring, len, heap, &enc) };
        }
        if heap == 0 || self.reserve_heap(heap) {
            // SAFETY: forwarded from the caller.
            unsafe { self.push_or_wait(ring, len, heap, &enc) }
        }
    }

    /// Takes `heap` bytes of the budget (a record always fits when no long
    /// text is queued), waiting as [`wait_until`](Self::wait_until) does.
    #[cold]
    #[inline(never)]
    fn reserve_heap(&self, heap: usize) -> bool {
        let (bytes, max) = (&self.shared.heap_bytes, self.shared.max_bytes);
        self.wait_until(|| {
            let fits = |now: usize| (now == 0 || now + heap <= max).then_some(now + heap);
            bytes
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, fits)
                .is_ok()
        })
    }

    /// Pushes a record of `len` words, waiting for room as
    /// [`wait_until`](Self::wait_until) does; a record dropped gives its
    /// `heap` bytes back to the budget.
    ///
    /// # Safety
    /// The caller must be `ring`'s only producer.
    #[cold]
    #[inline(never)]
    unsafe fn push_or_wait(&self, ring: &Ring, len: usize, heap: usize, enc: &dyn Fn(&mut [u64])) {
        // SAFETY: forwarded from the caller.
        if self.wait_until(|| unsafe { ring.try_push(len, enc) }) {
            self.wake_if_filling(ring);
        } else {
            self.shared.heap_bytes.fetch_sub(heap, Ordering::Relaxed);
        }
    }

    /// Retries `done` until it succeeds, waking the writer and backing off
    /// (`Block`); false, the record dropped and counted, under `Drop`, on
    /// the writer's thread or once the writer is gone.
    fn wait_until(&self, mut done: impl FnMut() -> bool) -> bool {
        let shared = &*self.shared;
        let mut tries = 0u32;
        while !done() {
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
        true
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
        unsafe { self.push_or_wait(ring, BIG_LEN as usize, bytes, &stub) }
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
