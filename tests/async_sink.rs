//! The async sink under load: nothing lost with `Block`, exact accounting
//! with `Drop`, and a flush that cannot hang behind a stuck writer.

use std::collections::HashMap;
use std::fs::File;
use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use elide::sink::{AsyncSink, Overflow};
use elide::{LevelFilter, Sink};

/// These tests replace the process-wide sinks: one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn temp_path(name: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("elide-{}-{name}.log", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}

fn install(sink: Arc<dyn Sink>) {
    elide::set_sinks([sink]);
    elide::set_level(LevelFilter::Info);
}

/// `t` and `seq` fields from a RADICAL line ending in `... t=<t> seq=<seq>`.
fn thread_and_seq(line: &str) -> Option<(u64, u64)> {
    let mut words = line.split_whitespace().rev();
    let seq = words.next()?.strip_prefix("seq=")?.parse().ok()?;
    let t = words.next()?.strip_prefix("t=")?.parse().ok()?;
    Some((t, seq))
}

/// Sum of the writer's own `N records dropped` lines.
fn announced_drops(text: &str) -> (u64, usize) {
    let mut total = 0;
    let mut lines = 0;
    for line in text.lines().filter(|l| l.contains(" records dropped")) {
        let n = line
            .split(" : ")
            .last()
            .and_then(|msg| msg.split_whitespace().next())
            .and_then(|n| n.parse::<u64>().ok())
            .expect("a count before 'records dropped'");
        total += n;
        lines += 1;
    }
    (total, lines)
}

/// Checks that, per thread, sequence numbers only go up, and returns how
/// many records each thread has in the file.
fn per_thread_in_order(text: &str) -> HashMap<u64, Vec<u64>> {
    let mut seen: HashMap<u64, Vec<u64>> = HashMap::new();
    for (t, seq) in text.lines().filter_map(thread_and_seq) {
        let v = seen.entry(t).or_default();
        if let Some(&last) = v.last() {
            assert!(seq > last, "thread {t}: seq {seq} after {last}");
        }
        v.push(seq);
    }
    seen
}

fn log_from_threads(threads: u64, per_thread: u64) {
    let handles: Vec<_> = (0..threads)
        .map(|t| {
            std::thread::spawn(move || {
                for seq in 0..per_thread {
                    elide::info!(t, seq, "r");
                }
            })
        })
        .collect();
    for h in handles {
        h.join().expect("logging thread");
    }
}

#[test]
fn block_keeps_every_record_once_and_in_thread_order() {
    let _serial = serial();
    const THREADS: u64 = 8;
    const PER_THREAD: u64 = 100_000;
    let path = temp_path("block");
    // A small queue so callers really wait for the durable writer.
    let sink = Arc::new(
        AsyncSink::durable_file_builder(&path)
            .expect("open log")
            .capacity(1024)
            .overflow(Overflow::Block)
            .build(),
    );
    install(sink.clone());
    log_from_threads(THREADS, PER_THREAD);
    elide::flush();

    let stats = sink.stats();
    assert_eq!(stats.dropped, 0);
    assert_eq!(stats.failed, 0);
    assert_eq!(stats.written, THREADS * PER_THREAD);
    let text = std::fs::read_to_string(&path).expect("read log");
    let seen = per_thread_in_order(&text);
    assert_eq!(seen.len() as u64, THREADS);
    for (t, seqs) in &seen {
        // Increasing and PER_THREAD of them from 0..PER_THREAD: each once.
        assert_eq!(seqs.len() as u64, PER_THREAD, "thread {t}");
        assert_eq!(seqs.first(), Some(&0));
        assert_eq!(seqs.last(), Some(&(PER_THREAD - 1)));
    }
    assert!(!text.contains("records dropped"));
    let _ = std::fs::remove_file(&path);
}

/// A file writer that holds its first write until the test opens the gate.
struct Gated {
    file: File,
    gate: Arc<(Mutex<bool>, Condvar)>,
}

impl Write for Gated {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let (open, cv) = &*self.gate;
        let mut open = open.lock().unwrap();
        while !*open {
            open = cv.wait(open).unwrap();
        }
        self.file.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.file.sync_data()
    }
}

fn gated(path: &PathBuf) -> (Gated, Arc<(Mutex<bool>, Condvar)>) {
    let gate = Arc::new((Mutex::new(false), Condvar::new()));
    let file = File::create(path).expect("create log");
    (
        Gated {
            file,
            gate: gate.clone(),
        },
        gate,
    )
}

fn open_gate(gate: &(Mutex<bool>, Condvar)) {
    *gate.0.lock().unwrap() = true;
    gate.1.notify_all();
}

#[test]
fn drop_accounts_for_every_record_and_says_so_in_the_log() {
    let _serial = serial();
    const THREADS: u64 = 4;
    const PER_THREAD: u64 = 5_000;
    let path = temp_path("drop");
    let (writer, gate) = gated(&path);
    let sink = Arc::new(
        AsyncSink::builder(writer)
            .capacity(8)
            .overflow(Overflow::Drop)
            .build(),
    );
    install(sink.clone());
    // The writer is stuck, so the tiny queue overflows: callers must not wait.
    log_from_threads(THREADS, PER_THREAD);
    open_gate(&gate);
    elide::flush();

    let stats = sink.stats();
    assert_eq!(stats.failed, 0);
    assert!(stats.dropped > 0, "{stats:?}");
    assert_eq!(stats.written + stats.dropped, THREADS * PER_THREAD);
    let text = std::fs::read_to_string(&path).expect("read log");
    let written: usize = per_thread_in_order(&text).values().map(Vec::len).sum();
    assert_eq!(written as u64, stats.written);
    let (announced, lines) = announced_drops(&text);
    assert!(lines >= 1, "no 'records dropped' line in:\n{text}");
    assert_eq!(announced, stats.dropped);
    let _ = std::fs::remove_file(&path);
}

#[test]
fn shutdown_timeout_bounds_flush_behind_a_stuck_writer() {
    let _serial = serial();
    let path = temp_path("timeout");
    let (writer, gate) = gated(&path);
    let sink = Arc::new(
        AsyncSink::builder(writer)
            .capacity(64)
            .shutdown_timeout(Duration::from_millis(200))
            .build(),
    );
    install(sink.clone());
    for seq in 0..10u64 {
        elide::info!(seq, "waiting");
    }
    // The writer cannot finish: flush must still return, leaving the records.
    elide::flush();
    assert_eq!(sink.stats().written, 0);
    open_gate(&gate);
    elide::flush();
    assert_eq!(sink.stats().written, 10);
    let text = std::fs::read_to_string(&path).expect("read log");
    assert_eq!(text.lines().count(), 10);
    let _ = std::fs::remove_file(&path);
}

#[test]
fn async_lines_are_byte_for_byte_the_synchronous_ones() {
    let _serial = serial();
    for format in [
        elide::format::Format::Radical,
        elide::format::Format::Json,
        elide::format::Format::Compact,
    ] {
        let async_path = temp_path("same-async");
        let sync_path = temp_path("same-sync");
        let sync = elide::sink::DurableFileSink::open(&sync_path)
            .expect("open log")
            .with_format(format);
        let asynchronous = AsyncSink::file_builder(&async_path)
            .expect("open log")
            .format(format)
            .build();
        elide::set_sinks([
            Arc::new(sync) as Arc<dyn Sink>,
            Arc::new(asynchronous) as Arc<dyn Sink>,
        ]);
        elide::set_level(LevelFilter::Info);
        let path = std::path::Path::new("/tmp/a b");
        let name = String::from("with \"quotes\" = and\nnewline");
        // Longer than a thread buffer keeps inline: moved through the heap.
        let long = "x\u{7}y".repeat(200);
        for i in 0..3u64 {
            elide::info!("static message");
            elide::warn!(i, x = -1.5, ok = true, c = 'q', "owned {i} {name}");
            elide::error!(p = %path.display(), d = ?name, s = name.as_str(), "ctl \u{7}");
            elide::info!(big = u128::MAX, neg = i128::MIN, "many");
            // Raw arguments, formatted on the writer by the site's decoder.
            elide::info!("task {} done in {} us", i, 17u32);
            elide::info!("{:>6.2} {:#x} {:?} {} {}", 2.5f32, -1i8, "q\"", 'c', true);
            elide::info!(
                "{1} {0} {2:e} {3}",
                i128::MIN,
                u128::MAX,
                1500.0f64,
                usize::MAX
            );
            elide::warn!(n = 3, s = "s", "long {} {}", long.as_str(), name);
        }
        std::thread::spawn(|| elide::info!(t = 2, "another thread"))
            .join()
            .unwrap();
        elide::flush();
        let a = std::fs::read_to_string(&async_path).expect("read async log");
        let s = std::fs::read_to_string(&sync_path).expect("read sync log");
        assert_eq!(a.lines().count(), 25, "{format:?}");
        assert_eq!(a, s, "{format:?}");
        let _ = std::fs::remove_file(&async_path);
        let _ = std::fs::remove_file(&sync_path);
    }
}

thread_local! {
    /// Logs from its destructor, which runs while the thread's other
    /// locals (its async buffer among them) may already be gone.
    static LOGS_ON_EXIT: LogsOnExit = const { LogsOnExit };
}

struct LogsOnExit;

impl Drop for LogsOnExit {
    fn drop(&mut self) {
        elide::info!("from a thread-local destructor {}", 1);
    }
}

/// A thread's records reach the file after the thread exits, including a
/// record emitted while its thread-locals are being torn down.
#[test]
fn records_of_exited_threads_are_written() {
    let _serial = serial();
    let path = temp_path("exited");
    let sink = Arc::new(AsyncSink::file(&path).expect("open log"));
    install(sink.clone());
    let handles: Vec<_> = (0..4u64)
        .map(|t| {
            std::thread::spawn(move || {
                LOGS_ON_EXIT.with(|_| ());
                for seq in 0..1_000u64 {
                    elide::info!(t, seq, "r {}", seq);
                }
            })
        })
        .collect();
    for h in handles {
        h.join().expect("logging thread");
    }
    elide::flush();
    let stats = sink.stats();
    assert_eq!((stats.written, stats.dropped, stats.failed), (4_004, 0, 0));
    let text = std::fs::read_to_string(&path).expect("read log");
    assert_eq!(text.matches("from a thread-local destructor 1").count(), 4);
    let seen = per_thread_in_order(&text);
    for t in 0..4 {
        assert_eq!(seen.get(&t).map(Vec::len), Some(1_000), "thread {t}");
    }
    let _ = std::fs::remove_file(&path);
}
