//! `AsyncSink::wrap`: any sink behind the async queue. Records arrive in
//! order and unchanged (typed fields, the caller's time and thread), drops
//! are counted exactly and announced, flush waits, telemetry passes, and a
//! panicking inner sink is contained.

use elide_tests::{install, serial};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, SystemTime};

use elide::sink::{AsyncSink, MemorySink, Overflow, OwnedValue};
use elide::telemetry::ProfSink;
use elide::{Level, LevelFilter, Record, Sink};

/// These tests replace the process-wide sinks: one at a time.
/// A gate the inner sink waits at until the test opens it.
#[derive(Default)]
struct Gate {
    open: Mutex<bool>,
    cv: Condvar,
}

impl Gate {
    fn wait(&self) {
        let mut open = self.open.lock().unwrap();
        while !*open {
            open = self.cv.wait(open).unwrap();
        }
    }
    fn open(&self) {
        *self.open.lock().unwrap() = true;
        self.cv.notify_all();
    }
}

/// An inner sink that is slow on purpose: it waits at a gate, then sleeps
/// a little per record, then keeps the record (and the thread name it was
/// given) in a `MemorySink`. It remembers how many records it had when it
/// was flushed.
struct Slow {
    gate: Gate,
    pause: Duration,
    mem: MemorySink,
    thread_names: Mutex<Vec<Option<String>>>,
    flushed_at: Mutex<Vec<usize>>,
}

impl Slow {
    fn new(pause: Duration, open: bool) -> Arc<Slow> {
        let slow = Arc::new(Slow {
            gate: Gate::default(),
            pause,
            mem: MemorySink::new(),
            thread_names: Mutex::new(Vec::new()),
            flushed_at: Mutex::new(Vec::new()),
        });
        if open {
            slow.gate.open();
        }
        slow
    }
}

impl Sink for Slow {
    fn max_level(&self) -> LevelFilter {
        LevelFilter::Debug
    }
    fn emit(&self, record: &Record<'_>) {
        self.gate.wait();
        std::thread::sleep(self.pause);
        self.thread_names.lock().unwrap().push(record.thread().name);
        self.mem.emit(record);
    }
    fn flush(&self) {
        self.flushed_at.lock().unwrap().push(self.mem.len());
    }
}

/// Installs `inner` behind a queue of `capacity` records under `policy`.
fn install_wrapped(inner: Arc<Slow>, capacity: usize, policy: Overflow) -> Arc<AsyncSink> {
    let sink = Arc::new(
        AsyncSink::builder()
            .capacity(capacity)
            .overflow(policy)
            .wrap(inner),
    );
    install(sink.clone());
    sink
}

#[test]
fn wrapped_sink_gets_the_callers_records_in_order_and_unchanged() {
    let _serial = serial();
    let inner = Slow::new(Duration::ZERO, false);
    let sink = Arc::new(AsyncSink::wrap(inner.clone()));
    assert_eq!(
        sink.max_level(),
        LevelFilter::Debug,
        "level of the inner sink"
    );
    install(sink.clone());

    let start = SystemTime::now();
    let path = std::path::Path::new("/tmp/a b");
    let name = String::from("quoted \"name\"");
    for i in 0..5i64 {
        elide::info!(
            i,
            x = -1.5,
            ok = true,
            c = 'q',
            s = name.as_str(),
            "main {i}"
        );
    }
    elide::warn!(p = %path.display(), d = ?name, big = u128::MAX, neg = i128::MIN, "rendered");
    let worker = std::thread::Builder::new()
        .name("caller-7".into())
        .spawn(|| {
            elide::info!(n = 1u64, "from worker");
            elide::thread_number()
        })
        .unwrap()
        .join()
        .unwrap();
    // A thread without a name reaches the inner sink without one (not as
    // an empty name).
    std::thread::spawn(|| elide::info!("from an unnamed thread"))
        .join()
        .unwrap();
    // Everything was emitted before this instant; the inner sink has seen
    // nothing yet (it waits at the gate), so a time read by the writer
    // would be later.
    let emitted = SystemTime::now();
    inner.gate.open();
    elide::flush();

    let records = inner.mem.records();
    let messages: Vec<&str> = records.iter().map(|r| r.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "main 0",
            "main 1",
            "main 2",
            "main 3",
            "main 4",
            "rendered",
            "from worker",
            "from an unnamed thread"
        ]
    );
    for r in &records {
        assert!(start <= r.time && r.time <= emitted, "caller's time: {r:?}");
        assert_eq!(r.target, module_path!());
    }
    let r = &records[3];
    assert_eq!(r.level, Level::Info);
    assert_eq!(
        r.fields,
        [
            ("i", OwnedValue::I64(3)),
            ("x", OwnedValue::F64(-1.5)),
            ("ok", OwnedValue::Bool(true)),
            ("c", OwnedValue::Char('q')),
            ("s", OwnedValue::Str(name.clone())),
        ]
    );
    let r = &records[5];
    assert_eq!(r.level, Level::Warn);
    assert_eq!(
        r.fields,
        [
            ("p", OwnedValue::Display("/tmp/a b".into())),
            ("d", OwnedValue::Debug(format!("{name:?}"))),
            ("big", OwnedValue::U128(u128::MAX)),
            ("neg", OwnedValue::I128(i128::MIN)),
        ]
    );
    let me = elide::thread_number();
    assert!(records[..6].iter().all(|r| r.thread == me));
    assert_eq!(records[6].thread, worker);
    assert_ne!(worker, me);
    let names = inner.thread_names.lock().unwrap().clone();
    let my_name = std::thread::current().name().map(str::to_owned);
    assert_eq!(names[0], my_name, "main thread's name");
    assert_eq!(names[6].as_deref(), Some("caller-7"));
    assert_eq!(names[7], None);

    let stats = sink.stats();
    assert_eq!((stats.written, stats.dropped, stats.failed), (8, 0, 0));
}

#[test]
fn drop_accounting_is_exact_with_a_slow_inner_sink() {
    let _serial = serial();
    const THREADS: u64 = 4;
    const PER_THREAD: u64 = 2_000;
    let inner = Slow::new(Duration::from_micros(20), false);
    let sink = install_wrapped(inner.clone(), 8, Overflow::Drop);
    // The inner sink is stuck at its gate, so the tiny queue overflows.
    let handles: Vec<_> = (0..THREADS)
        .map(|t| {
            std::thread::spawn(move || {
                for seq in 0..PER_THREAD {
                    elide::info!(t, seq, "r");
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    inner.gate.open();
    elide::flush();

    let stats = sink.stats();
    assert_eq!(stats.failed, 0);
    assert!(stats.dropped > 0, "{stats:?}");
    assert_eq!(stats.written + stats.dropped, THREADS * PER_THREAD);
    let records = inner.mem.records();
    let (notices, user): (Vec<_>, Vec<_>) = records
        .iter()
        .partition(|r| r.message.ends_with(" records dropped"));
    assert_eq!(user.len() as u64, stats.written);
    assert!(!notices.is_empty());
    let mut announced = 0;
    for n in &notices {
        assert_eq!(n.level, Level::Warn);
        let Some(OwnedValue::U64(count)) = n.field("dropped") else {
            panic!("notice without a dropped count: {n:?}");
        };
        assert_eq!(n.message, format!("{count} records dropped"));
        announced += count;
    }
    assert_eq!(announced, stats.dropped);
    // What got through is still in per-thread order.
    let mut last = std::collections::HashMap::new();
    for r in user {
        let (Some(OwnedValue::U64(t)), Some(OwnedValue::U64(seq))) = (r.field("t"), r.field("seq"))
        else {
            panic!("fields missing: {r:?}");
        };
        if let Some(prev) = last.insert(*t, *seq) {
            assert!(*seq > prev, "thread {t}: {seq} after {prev}");
        }
    }
}

#[test]
fn flush_waits_for_the_drain_then_flushes_the_inner_sink() {
    let _serial = serial();
    let inner = Slow::new(Duration::from_millis(1), true);
    let sink = Arc::new(
        AsyncSink::builder()
            .overflow(Overflow::Block)
            .wrap(inner.clone()),
    );
    install(sink.clone());
    for seq in 0..50u64 {
        elide::info!(seq, "slow");
    }
    elide::flush();
    // Returned only after all 50 reached the inner sink and it was flushed
    // with all of them.
    assert_eq!(inner.mem.len(), 50);
    assert_eq!(inner.flushed_at.lock().unwrap().last(), Some(&50));
    assert_eq!(sink.stats().written, 50);
}

/// Under `Block`, a caller waits for a queue slot as long as the writer is
/// busy (here 300 ms, longer than the slices it waits in), and its record
/// is written, not dropped.
#[test]
fn a_blocked_caller_waits_as_long_as_the_writer_is_busy() {
    let _serial = serial();
    let inner = Slow::new(Duration::ZERO, false);
    let sink = install_wrapped(inner.clone(), 1, Overflow::Block);
    // The writer holds the first record at the gate, the queue the second;
    // the third waits for room.
    let caller = std::thread::spawn(|| {
        for seq in 0..3u64 {
            elide::info!(seq, "blocked");
        }
    });
    std::thread::sleep(Duration::from_millis(300));
    inner.gate.open();
    caller.join().unwrap();
    elide::flush();
    let st = sink.stats();
    assert_eq!((st.written, st.dropped), (3, 0), "{st:?}");
}

/// A sink whose `max_level` panics when the writer thread asks (to tell
/// it about drops), and which keeps each `Info` record.
#[derive(Default)]
struct PanicsOnWriter(MemorySink);

impl Sink for PanicsOnWriter {
    fn max_level(&self) -> LevelFilter {
        assert_ne!(std::thread::current().name(), Some("elide-writer"));
        LevelFilter::Info
    }
    fn emit(&self, record: &Record<'_>) {
        std::thread::sleep(Duration::from_millis(1));
        if record.level() == Level::Info {
            self.0.emit(record);
        }
    }
}

/// The writer calls only contained code of the wrapped sink: a `max_level`
/// that panics there is counted, and the writer goes on writing.
#[test]
fn a_wrapped_sink_panicking_in_max_level_does_not_end_the_writer() {
    let _serial = serial();
    let inner = Arc::new(PanicsOnWriter::default());
    let sink = Arc::new(
        AsyncSink::builder()
            .capacity(2)
            .overflow(Overflow::Drop)
            .wrap(inner.clone()),
    );
    install(sink.clone());
    let panics = elide::stats().sink_panics;
    // Drops, so the writer has some to announce: the caller fills its
    // buffer faster than the writer (1 ms a record) drains it.
    let pad = "p".repeat(200);
    let mut seq = 0u64;
    while sink.stats().dropped == 0 {
        elide::info!(seq, pad, "flood");
        seq += 1;
    }
    elide::flush();
    assert!(sink.stats().dropped > 0, "{:?}", sink.stats());
    assert!(elide::stats().sink_panics > panics);
    let written = inner.0.len();
    for seq in 0..5u64 {
        elide::info!(seq, "after");
        elide::flush();
    }
    assert_eq!(inner.0.len(), written + 5, "{:?}", sink.stats());
}

#[test]
fn wrapped_prof_sink_gets_telemetry_with_the_callers_thread() {
    let _serial = serial();
    let dir = elide_tests::Scratch::path("wrap-prof");
    let prof = Arc::new(ProfSink::open(&dir, "wrapped").unwrap());
    let sink = Arc::new(AsyncSink::wrap(prof.clone()));
    assert!(sink.wants_telemetry());
    assert_eq!(sink.max_level(), LevelFilter::Off);
    elide::set_sinks([sink.clone() as Arc<dyn Sink>]);
    elide::set_telemetry(true);

    elide::telemetry!(target: "radical.asyncflow.engine", "task.start", uid = "task.1", state = "RUNNING");
    std::thread::Builder::new()
        .name("worker-3".into())
        .spawn(|| elide::telemetry!(target: "radical.asyncflow.engine", "task.stop", uid = "task.1", n = 2))
        .unwrap()
        .join()
        .unwrap();
    elide::flush();
    prof.close().unwrap();
    let text = std::fs::read_to_string(dir.join("wrapped.prof")).unwrap();
    let events: Vec<Vec<&str>> = text
        .lines()
        .map(|l| l.split(',').collect::<Vec<_>>())
        .filter(|f| f[1].starts_with("task."))
        .collect();
    let me = std::thread::current()
        .name()
        .map(str::to_owned)
        .unwrap_or_else(|| elide::thread_number().to_string());
    assert_eq!(events.len(), 2, "{text}");
    assert_eq!(
        events[0][1..6],
        ["task.start", "wrapped", &me, "task.1", "RUNNING"]
    );
    assert_eq!(
        events[1][1..7],
        ["task.stop", "wrapped", "worker-3", "task.1", "", "n=2"]
    );
    assert_eq!(sink.stats().written, 2);
    elide::set_telemetry(false);
}

/// Panics on records with `boom = true`, keeps the others.
struct Fragile {
    kept: AtomicU64,
}

impl Sink for Fragile {
    fn emit(&self, record: &Record<'_>) {
        if let Some(elide::Value::Bool(true)) = record.field("boom") {
            panic!("fragile sink");
        }
        self.kept.fetch_add(1, Ordering::Relaxed);
    }
}

#[test]
fn a_panicking_inner_sink_is_counted_not_fatal() {
    let _serial = serial();
    let inner = Arc::new(Fragile {
        kept: AtomicU64::new(0),
    });
    let sink = Arc::new(AsyncSink::wrap(inner.clone()));
    install(sink.clone());
    let before = elide::stats().sink_panics;
    for i in 0..10u64 {
        elide::info!(i, boom = i % 3 == 0, "maybe");
    }
    elide::flush();
    let stats = sink.stats();
    assert_eq!((stats.written, stats.failed), (6, 4));
    assert_eq!(inner.kept.load(Ordering::Relaxed), 6);
    assert!(elide::stats().sink_panics >= before + 4);
    // The writer is still alive.
    elide::info!(boom = false, "after");
    elide::flush();
    assert_eq!(sink.stats().written, 7);
}

/// An inner sink that logs from inside `emit`, on the writer thread.
struct Chatty(AtomicU64);

impl Sink for Chatty {
    fn emit(&self, _: &Record<'_>) {
        self.0.fetch_add(1, Ordering::SeqCst);
        elide::warn!("logged by the wrapped sink");
    }
}

#[test]
fn a_wrapped_sink_that_logs_does_not_feed_its_own_queue() {
    let _s = serial();
    let chatty = Arc::new(Chatty(AtomicU64::new(0)));
    let sink = Arc::new(AsyncSink::wrap(chatty.clone()));
    install(sink.clone());
    let nested_before = elide::stats().nested_dropped;
    elide::error!("one record from the caller");
    sink.flush();
    std::thread::sleep(Duration::from_millis(50));
    sink.flush();
    assert_eq!(
        chatty.0.load(Ordering::SeqCst),
        1,
        "only the caller's record reaches the sink"
    );
    assert_eq!(elide::stats().nested_dropped, nested_before + 1);
    elide::set_sinks(Vec::<Arc<dyn Sink>>::new());
}

/// An inner sink that takes 1 ms per record and counts the `Info` ones.
struct SlowCounted(AtomicU64);

impl Sink for SlowCounted {
    fn emit(&self, record: &Record<'_>) {
        std::thread::sleep(Duration::from_millis(1));
        // Not the writer's own `N records dropped` warnings.
        if record.level() == Level::Info {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// The wrapped form honours the byte budget too: behind a slow sink, 1 KB
/// records beyond 8 KB in flight are dropped (and counted), not queued.
#[test]
fn the_byte_budget_bounds_the_queue_of_a_wrapped_sink() {
    let _s = serial();
    let inner = Arc::new(SlowCounted(AtomicU64::new(0)));
    let sink = Arc::new(
        AsyncSink::builder()
            .overflow(Overflow::Drop)
            .max_bytes(8 * 1024)
            .wrap(inner.clone()),
    );
    install(sink.clone());
    let mut peak = 0;
    for seq in 0..200u64 {
        elide::info!(seq, "{}", "k".repeat(1024));
        peak = peak.max(sink.stats().queued_bytes);
    }
    elide::flush();
    let st = sink.stats();
    assert!(peak <= 8 * 1024 + 2048, "peak {peak} bytes queued: {st:?}");
    assert!(st.dropped > 0, "{st:?}");
    assert_eq!(st.written + st.dropped, 200, "{st:?}");
    assert_eq!(inner.0.load(Ordering::Relaxed), st.written);
}
