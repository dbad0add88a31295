//! The async sink under load: nothing lost with `Block`, exact accounting
//! with `Drop`, and a flush that cannot hang behind a stuck writer.

use elide_tests::{install, serial, temp_path};
use std::collections::HashMap;
use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use elide::sink::{AsyncSink, Overflow};
use elide::{LevelFilter, Sink};

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
        AsyncSink::builder()
            .capacity(1024)
            .overflow(Overflow::Block)
            .open_durable(&path)
            .expect("open log"),
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

fn gated(path: &Path) -> (Gated, Arc<(Mutex<bool>, Condvar)>) {
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
        AsyncSink::builder()
            .capacity(8)
            .overflow(Overflow::Drop)
            .build(writer),
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
}

#[test]
fn shutdown_timeout_bounds_flush_behind_a_stuck_writer() {
    let _serial = serial();
    let path = temp_path("timeout");
    let (writer, gate) = gated(&path);
    let sink = Arc::new(
        AsyncSink::builder()
            .capacity(64)
            .shutdown_timeout(Duration::from_millis(200))
            .build(writer),
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
        let asynchronous = AsyncSink::builder()
            .format(format)
            .open(&async_path)
            .expect("open log");
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
    let sink = Arc::new(AsyncSink::open(&path).expect("open log"));
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
}

/// A writer over a shared buffer that accepts `budget` more bytes, then
/// fails (like a full disk) until given more.
#[derive(Clone, Default)]
struct Filling {
    state: Arc<Mutex<(Vec<u8>, usize)>>,
}

impl Filling {
    fn give(&self, bytes: usize) {
        self.state.lock().unwrap().1 = bytes;
    }
    fn text(&self) -> String {
        String::from_utf8(self.state.lock().unwrap().0.clone()).unwrap()
    }
}

impl Write for Filling {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut s = self.state.lock().unwrap();
        if s.1 == 0 {
            return Err(std::io::Error::other("no space left (test)"));
        }
        let n = buf.len().min(s.1);
        s.1 -= n;
        s.0.extend_from_slice(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn thread_seq(line: &str) -> u64 {
    line.rsplit("seq=").next().unwrap().parse().unwrap()
}

/// A write that fails part-way through a record never glues the fragment
/// to a later record: every line is one whole record, and written + failed
/// = emitted.
#[test]
fn a_failed_write_never_tears_a_later_record() {
    let _s = serial();
    let out = Filling::default();
    // Room for the first record and part of the second.
    out.give(150);
    let sink = Arc::new(AsyncSink::builder().name("filling").build(out.clone()));
    install(sink.clone());
    for seq in 0..10 {
        elide::info!("record seq={seq}");
    }
    elide::flush();
    out.give(usize::MAX);
    for seq in 10..20 {
        elide::info!("record seq={seq}");
    }
    elide::flush();
    let text = out.text();
    assert!(text.ends_with('\n'), "{text}");
    let mut seqs = Vec::new();
    for line in text.lines() {
        assert_eq!(line.matches("record seq=").count(), 1, "torn: {line:?}");
        let seq = line.rsplit("seq=").next().unwrap().parse::<u64>();
        assert!(seq.is_ok(), "torn: {line:?}");
        assert_eq!(line.matches(" : ").count(), 5, "torn: {line:?}");
        let time = line.split(" : ").next().unwrap();
        assert!(
            time.parse::<f64>().is_ok() && time.len() - time.find('.').unwrap() == 4,
            "torn: {line:?}"
        );
        seqs.push(seq.unwrap());
    }
    let s = sink.stats();
    assert_eq!(s.written, seqs.len() as u64, "{s:?} {seqs:?}");
    assert_eq!(s.written + s.failed, 20, "{s:?}");
    assert!(s.failed > 0, "the test filled the writer: {s:?}");
    // The record that straddled byte 150 was torn, then completed.
    let before: Vec<&str> = text.lines().filter(|l| thread_seq(l) < 10).collect();
    let start_of_last: usize = before[..before.len() - 1].iter().map(|l| l.len() + 1).sum();
    assert!(
        start_of_last < 150 && start_of_last + before.last().unwrap().len() + 1 > 150,
        "the torn record is in the output, completed: {before:?}"
    );
    assert!((10..20).all(|k| seqs.contains(&k)), "{seqs:?}");
}

/// Runs `sink_child args..` with a deadline; its stdout.
fn run_child(args: &[&str], deadline: Duration) -> String {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_sink_child"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("start sink_child");
    let start = std::time::Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed() > deadline {
            let _ = child.kill();
            panic!("sink_child {args:?} still running after {deadline:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().expect("child output");
    assert!(
        out.status.success(),
        "sink_child {args:?}: {:?}",
        out.status
    );
    String::from_utf8(out.stdout).unwrap()
}

fn field(text: &str, key: &str) -> u64 {
    text.split_whitespace()
        .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no {key} in {text:?}"))
}

/// Four threads flooding 6 KB records under `Drop` into a writer slower
/// than they are: the queue's byte budget bounds the resident memory (it
/// was 411 MB with a bound in records only), and every record is still
/// accounted for.
#[test]
fn a_flood_of_big_records_stays_within_the_byte_budget() {
    let report = run_child(&["flood", "10000"], Duration::from_secs(120));
    let budget = field(&report, "max_bytes");
    assert_eq!(budget, elide::sink::AsyncSink::DEFAULT_MAX_BYTES as u64);
    let peak = field(&report, "peak_rss_kib") * 1024;
    // The budget, a quarter of it in the buffer pool, the queue's slots,
    // the program itself: twice the budget plus 32 MiB is generous.
    let bound = 2 * budget + 32 * 1024 * 1024;
    assert!(
        peak > 0 && peak < bound,
        "peak resident {peak} bytes, bound {bound}: {report}"
    );
    let dropped = field(&report, "dropped");
    assert!(dropped > 0, "the flood overran the budget: {report}");
    assert_eq!(
        field(&report, "written") + dropped + field(&report, "failed"),
        field(&report, "emitted"),
        "{report}"
    );
}

/// The byte budget bounds the queue under `Block` too: with the writer
/// stuck, a caller whose record does not fit waits (the queue holds no
/// more than the budget), and once the writer runs nothing is lost.
#[test]
fn block_waits_for_bytes_and_loses_nothing() {
    let _serial = serial();
    let path = temp_path("block-bytes");
    let (writer, gate) = gated(&path);
    let sink = Arc::new(AsyncSink::builder().max_bytes(2_000).build(writer));
    install(sink.clone());
    let logged = std::sync::atomic::AtomicU64::new(0);
    std::thread::scope(|s| {
        s.spawn(|| {
            for seq in 0..1_000u64 {
                elide::info!(seq, "{}", "b".repeat(300));
                logged.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            }
        });
        std::thread::sleep(Duration::from_millis(200));
        let st = sink.stats();
        let n = logged.load(std::sync::atomic::Ordering::SeqCst);
        open_gate(&gate);
        // In flight: the budget (a few records) in the queue, plus the
        // writer's batch (formatted lines, up to 64 KiB) held at the gate.
        assert!(n < 300, "the caller waited for bytes ({n} logged): {st:?}");
        assert!(st.queued_bytes <= 2_000 && st.queued_bytes > 0, "{st:?}");
    });
    elide::flush();
    let st = sink.stats();
    assert_eq!(
        (st.written, st.dropped, st.queued_bytes),
        (1_000, 0, 0),
        "{st:?}"
    );
}

/// Waits for `thread` to end, failing the test after a minute: a caller
/// stuck waiting for a byte budget that is never given back fails here
/// instead of hanging the suite.
fn joined_within_a_minute<T>(thread: std::thread::JoinHandle<T>, what: &str) -> T {
    let start = std::time::Instant::now();
    while !thread.is_finished() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "{what}: still waiting after a minute"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    thread.join().expect(what)
}

/// Records with more fields than a byte counts (256, 257, 1,000, 10,000),
/// each a long text that leaves the thread buffer, reach the file with
/// every field, and the byte budget their texts took is all given back:
/// with a 1 MiB budget, 30 such records in a row do not leave the caller
/// waiting for bytes nobody frees.
#[test]
fn records_with_hundreds_of_long_fields_are_written_whole() {
    let _serial = serial();
    let path = temp_path("many-fields");
    let sink = Arc::new(
        AsyncSink::builder()
            .max_bytes(1 << 20)
            .open(&path)
            .expect("open log"),
    );
    install(sink.clone());
    let rounds: [(usize, u64); 4] = [(256, 30), (257, 30), (1_000, 30), (10_000, 1)];
    let logger = std::thread::spawn(move || {
        let keys: Vec<&'static str> = (0..10_000)
            .map(|i| &*Box::leak(format!("k{i}").into_boxed_str()))
            .collect();
        let value = "v".repeat(300);
        for (n, times) in rounds {
            let fields: Vec<elide::Field<'_>> = keys[..n]
                .iter()
                .map(|k| (*k, elide::Value::Str(&value)))
                .collect();
            for i in 0..times {
                elide::emit(
                    "nf",
                    elide::Level::Info,
                    &fields,
                    format_args!("fields {n} rec {i}"),
                );
            }
        }
    });
    joined_within_a_minute(logger, "the logging thread");
    elide::flush();
    let stats = sink.stats();
    assert_eq!((stats.written, stats.dropped, stats.failed), (91, 0, 0));
    assert_eq!(stats.queued_bytes, 0, "every long text's bytes given back");
    let text = std::fs::read_to_string(&path).expect("read log");
    let value = "v".repeat(300);
    for (n, times) in rounds {
        let lines: Vec<&str> = text
            .lines()
            .filter(|l| l.contains(&format!("fields {n} rec ")))
            .collect();
        assert_eq!(lines.len() as u64, times, "{n} fields");
        for line in lines {
            assert_eq!(line.matches(&value).count(), n, "fields of a line");
            let last = format!(" k{}={value}", n - 1);
            assert!(line.contains(&last), "{n} fields: no {}", &last[..8]);
        }
    }
}

/// A record far larger than half a thread buffer (3,000 fields of 200
/// bytes, about 620 KB on the line, 670 KB encoded, with the default
/// 1 MiB buffer) is written whole under `Block`, between its neighbours.
#[test]
fn a_record_larger_than_half_a_thread_buffer_is_written_under_block() {
    let _serial = serial();
    let path = temp_path("big-record");
    let sink = Arc::new(
        AsyncSink::builder()
            .overflow(Overflow::Block)
            .open(&path)
            .expect("open log"),
    );
    install(sink.clone());
    let keys: Vec<String> = (0..3_000).map(|i| format!("k{i}")).collect();
    let keys: Vec<&'static str> = keys
        .into_iter()
        .map(|k| &*Box::leak(k.into_boxed_str()))
        .collect();
    let value = "w".repeat(200);
    let fields: Vec<elide::Field<'_>> = keys
        .iter()
        .map(|k| (*k, elide::Value::Str(&value)))
        .collect();
    elide::info!("before");
    elide::emit("big", elide::Level::Info, &fields, format_args!("big one"));
    elide::info!("after");
    elide::flush();
    let stats = sink.stats();
    assert_eq!((stats.written, stats.dropped, stats.failed), (3, 0, 0));
    assert_eq!(stats.queued_bytes, 0);
    let text = std::fs::read_to_string(&path).expect("read log");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3);
    assert!(lines[0].contains("before") && lines[2].contains("after"));
    assert!(lines[1].len() > 600_000, "{} bytes", lines[1].len());
    assert_eq!(lines[1].matches(&value).count(), 3_000);
}

/// This process's resident memory in KiB (`VmRSS`), 0 where unknown.
fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// Resident memory the churn case may reach: a few thread buffers and the
/// byte budget, far below one buffer per thread that ever logged (2 GB).
const CHURN_RSS_BOUND_KIB: u64 = 100 * 1024;
const CHURN_THREADS: u64 = 2_000;

/// The churn case, in a child: a writer stuck in `write`, `Drop`, a 1 MiB
/// byte budget, and 2,000 threads (eight at a time) that each log one
/// record and exit. Stops early once memory passes the bound. Prints what
/// the parent checks.
fn churn_child(path: &std::ffi::OsStr) {
    let (writer, gate) = gated(Path::new(path));
    let sink = Arc::new(
        AsyncSink::builder()
            .overflow(Overflow::Drop)
            .max_bytes(1 << 20)
            .build(writer),
    );
    install(sink.clone());
    let mut peak = rss_kib();
    let mut emitted = 0;
    while emitted < CHURN_THREADS && peak <= CHURN_RSS_BOUND_KIB {
        let wave: Vec<_> = (emitted..emitted + 8)
            .map(|i| std::thread::spawn(move || elide::info!(i, "churn")))
            .collect();
        for t in wave {
            t.join().expect("logging thread");
        }
        emitted += 8;
        peak = peak.max(rss_kib());
    }
    open_gate(&gate);
    elide::flush();
    let s = sink.stats();
    println!(
        "emitted={emitted} written={} dropped={} failed={} peak_rss_kib={peak}",
        s.written, s.dropped, s.failed
    );
}

/// A writer that stops taking bytes, while threads come and go, holds the
/// sink's memory to the threads alive at once and the byte budget, not one
/// thread buffer per thread that ever logged; once the writer moves again
/// every record is accounted for (written + dropped + failed = emitted),
/// and what is in the file is what was counted written.
#[test]
fn thread_churn_behind_a_stalled_writer_keeps_memory_bounded() {
    if let Some(path) = std::env::var_os("ELIDE_CHURN_LOG") {
        return churn_child(&path);
    }
    let path = temp_path("churn");
    let out = elide_tests::run_with_deadline(
        std::process::Command::new(std::env::current_exe().expect("test binary"))
            .args([
                "--exact",
                "thread_churn_behind_a_stalled_writer_keeps_memory_bounded",
                "--nocapture",
            ])
            .env("ELIDE_CHURN_LOG", &path),
        Duration::from_secs(300),
    );
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    let stat = |key: &str| -> u64 {
        text.split_whitespace()
            .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no {key} in {text}"))
    };
    let peak = stat("peak_rss_kib");
    eprintln!("churn: peak RSS {peak} KiB");
    assert!(
        peak <= CHURN_RSS_BOUND_KIB,
        "memory grew with the threads: {peak} KiB after {} threads",
        stat("emitted")
    );
    assert_eq!(stat("emitted"), CHURN_THREADS);
    let (written, dropped, failed) = (stat("written"), stat("dropped"), stat("failed"));
    assert_eq!(written + dropped + failed, CHURN_THREADS, "{text}");
    let log = std::fs::read_to_string(&path).expect("read log");
    let lines = log.lines().filter(|l| l.contains(" : churn")).count();
    assert_eq!(lines as u64, written, "lines in the file");
}
