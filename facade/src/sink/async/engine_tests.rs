//! Tests of the async engine through its queue: what the caller copies,
//! the writer's output and accounting, flush, shutdown and thread churn.

use std::cell::RefCell;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, UNIX_EPOCH};

use super::codec::MAX_INLINE;
use super::on_writer;
use super::queue::RingQueue;
use super::shared::lock;
use super::writer::Output;
use crate::format::Format;
use crate::record::level::Level;
use crate::record::metadata::TEST_LOG;
use crate::record::raw::Piece;
use crate::record::raw::{MessageFormat, RawArg, RawFloat, RawMessage};
use crate::record::value::{Field, Value};
use crate::record::Record;
use crate::sink::until;
use crate::sink::Overflow;
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
        want += &emit_raw(&q, &FORMAT, &args, Level::Debug, fields);
    }
    assert!(flushed(&q));
    assert_eq!(out.text(), want);
    assert!(want.contains("n=5") && want.contains("k=vvv"), "{want}");
    assert_eq!(q.shared.counts(), (3, 0, 0));
    q.shut_down();
}

/// Emits a record of `format` over `args` with its raw view, as a site
/// does, at a fixed time and thread; returns the line the synchronous
/// layout writes for it.
fn emit_raw(
    q: &RingQueue,
    format: &'static MessageFormat,
    args: &[RawArg<'_>],
    level: Level,
    fields: &[Field<'_>],
) -> String {
    let mut line = String::new();
    format.with_arguments(args, &mut |m| {
        let record = Record::new(&TEST_LOG, level, m, fields)
            .with_time(at(0))
            .with_thread(2)
            .with_raw(Some(RawMessage::new(format, args)));
        q.emit(&record);
        line = direct(&record);
    });
    line
}

/// `n={} s={}`, as pieces.
static TWO_ARGS: MessageFormat = MessageFormat::pieces(&[
    Piece::Lit("n="),
    Piece::Display(0),
    Piece::Lit(" s="),
    Piece::Display(1),
]);

/// A raw message with a borrowed argument (a `Display` value only the
/// caller can format) cannot be copied as words either: it is rendered
/// on the caller, typed neighbours and all, and reads the same.
#[test]
fn a_raw_message_with_a_borrowed_argument_is_rendered() {
    let out = Out::default();
    let q = queue(&out);
    let shown = Shown("w", 2);
    let args = [RawArg::U32(5), RawArg::Display(&shown)];
    let want = emit_raw(&q, &TWO_ARGS, &args, Level::Info, &[]);
    assert!(flushed(&q));
    assert_eq!(out.text(), want);
    assert!(want.contains("n=5 s=ww"), "{want}");
    assert_eq!(q.shared.counts(), (1, 0, 0));
    q.shut_down();
}

/// The common record (a raw message of one-word scalars, no fields, no
/// span, the caller's own thread) is copied in one pass; one that starts
/// like it and then has a text or a wide number is abandoned unpublished,
/// sized and written again, and one with a borrowed argument goes the
/// general way. In a small ring that wraps many times every line is the
/// caller's, whole and in order.
#[test]
fn scalar_records_and_abandoned_ones_arrive_whole_and_in_order_across_wraps() {
    let out = Out::default();
    let q = queue_with(&out, Overflow::Block, 64 * 8, 1 << 20);
    let shown = Shown("w", 3);
    let mut want = String::new();
    for i in 0..500u64 {
        let second = match i % 4 {
            0 => RawArg::U64(i),
            1 => RawArg::Str("text"),
            2 => RawArg::I128(-(i as i128)),
            _ => RawArg::Display(&shown),
        };
        let args = [RawArg::I32(i as i32), second];
        TWO_ARGS.with_arguments(&args, &mut |m| {
            let record = Record::new(&TEST_LOG, Level::Info, m, &[])
                .with_time(at(i))
                .with_raw(Some(RawMessage::new(&TWO_ARGS, &args)));
            q.emit(&record);
            want.push_str(&direct(&record));
        });
    }
    assert!(flushed(&q));
    assert_eq!(out.text(), want);
    assert!(
        want.contains("n=499 s=www") && want.contains("n=2 s=-2"),
        "{want}"
    );
    assert_eq!(q.shared.counts(), (500, 0, 0));
    q.shut_down();
}

/// A record of the plain shape (scalar arguments, no fields, the caller's
/// own thread) emitted inside a span this thread entered carries the
/// chain: the one-pass copy, which has no room for it, is not taken.
#[test]
fn a_plain_record_inside_an_entered_span_keeps_its_chain() {
    let (_outer, inner) = crate::record::span_data::test_chain(&[]);
    let out = Out::default();
    let q = queue(&out);
    let args = [RawArg::I32(7), RawArg::U64(8)];
    let mut want = String::new();
    crate::record::span_data::enter(&inner);
    TWO_ARGS.with_arguments(&args, &mut |m| {
        let record = Record::new(&TEST_LOG, Level::Info, m, &[])
            .with_time(at(0))
            .with_raw(Some(RawMessage::new(&TWO_ARGS, &args)));
        q.emit(&record);
        want.push_str(&direct(&record));
    });
    crate::record::span_data::exit(&inner);
    assert!(flushed(&q));
    assert_eq!(out.text(), want);
    assert!(
        want.contains("n=7 s=8") && want.contains("outer") && want.contains("inner"),
        "{want}"
    );
    q.shut_down();
}

/// A record in a span keeps its chain through the ring (the writer gets
/// a reference to the same spans, not a copy), with and without fields
/// of its own; one out of any span carries none.
#[test]
fn a_records_span_chain_goes_through_the_ring() {
    let (outer, inner) = crate::record::span_data::test_chain(&[("b", Value::Str("x\u{2028}y"))]);
    let out = Out::default();
    let q = queue(&out);
    let fields: [Field<'_>; 1] = [("k", Value::I64(-3))];
    let mut want = String::new();
    for (span, fields) in [
        (Some(inner.clone()), &fields[..]),
        (Some(outer.clone()), &[][..]),
        (None, &fields[..]),
    ] {
        let record = Record::new(&TEST_LOG, Level::Info, format_args!("step"), fields)
            .with_time(at(0))
            .with_thread(2)
            .with_span(span);
        q.emit(&record);
        want.push_str(&direct(&record));
    }
    assert!(flushed(&q));
    assert_eq!(out.text(), want);
    assert!(want.contains("outer") && want.contains("inner"), "{want}");
    assert_eq!(q.shared.counts(), (3, 0, 0));
    q.shut_down();
    // Only the test's references are left: the writer gave its back.
    assert_eq!(
        (Arc::strong_count(&inner), Arc::strong_count(&outer)),
        (1, 2)
    );
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
            let record = Record::new(&TEST_LOG, Level::Info, format_args!("from a thread"), &[])
                .with_time(at(i));
            q.emit(&record);
            (crate::record::thread_number(), direct(&record))
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
            crate::record::thread_number()
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
            let record =
                Record::new(&TEST_LOG, Level::Error, format_args!("at exit"), &[]).with_time(at(1));
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
            crate::record::thread_number()
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
