//! Child process for the sink tests: logs through a durable or failing sink
//! and exits the way a real program would. `sink_child <mode> [args]`.

use std::fs::File;
use std::io::Write;
use std::sync::Arc;

use elide::sink::{AsyncSink, DurableFile, DurableFileSink, FileSink};
use elide::{LevelFilter, Sink};

/// A durable file that takes 20 ms more per sync.
struct SlowDisk(DurableFile);

impl Write for SlowDisk {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        std::thread::sleep(std::time::Duration::from_millis(20));
        self.0.flush()
    }
}

fn install(sink: Arc<dyn Sink>) {
    elide::set_sinks([sink]);
    elide::set_level(LevelFilter::Info);
}

fn log_n(n: u64) {
    for seq in 0..n {
        elide::info!(seq, "record {seq}");
    }
}

/// Prints the counters the parent checks.
fn print_stats(extra: &str) {
    let s = elide::stats();
    println!("write_errors={} {extra}", s.write_errors);
}

/// A site sampled by time, for the fork test.
fn every_10ms(i: u64) {
    elide::info!(every = std::time::Duration::from_millis(10), i, "tick");
}

#[cfg(unix)]
fn fork_test(path: &str) {
    use std::time::{Duration, Instant};
    extern "C" {
        fn fork() -> i32;
        fn waitpid(pid: i32, status: *mut i32, options: i32) -> i32;
    }
    install(Arc::new(AsyncSink::open(path).expect("open log")));
    log_n(10);
    every_10ms(0); // starts the ticker in the parent
    elide::flush();
    // SAFETY: the child only logs, swaps sinks and exits; glibc keeps
    // malloc usable in the child of a threaded process.
    let child = unsafe { fork() };
    if child == 0 {
        // The async sink has no writer here: this record is dropped, and
        // neither this nor exit's flush may wait for a writer.
        elide::info!("from the child");
        let mem = Arc::new(elide::sink::MemorySink::new());
        elide::set_sinks([mem.clone() as Arc<dyn Sink>]);
        let start = Instant::now();
        let mut i = 0;
        while start.elapsed() < Duration::from_millis(300) {
            i += 1;
            every_10ms(i);
            std::thread::sleep(Duration::from_millis(2));
        }
        println!("child_every={}", mem.len());
        std::process::exit(0);
    }
    let mut status = 0;
    // SAFETY: waits for the child forked above.
    let waited = unsafe { waitpid(child, &mut status, 0) };
    println!("child_waited={} status={status}", waited == child);
    for seq in 10..20 {
        elide::info!(seq, "record {seq}");
    }
    let guard = elide::init();
    drop(guard);
}

/// A sink that takes its own lock in `emit` and `flush`, and runs a
/// `check!` inside `emit`: a failing check there must not flush this sink
/// again (its lock is held) nor panic into the caller.
#[derive(Default)]
struct CheckingSink(std::sync::Mutex<Vec<String>>);

impl Sink for CheckingSink {
    fn emit(&self, record: &elide::Record<'_>) {
        let mut lines = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let msg = record.args().to_string();
        elide::check!(msg != "bad", "the sink refuses {msg:?}");
        lines.push(msg);
    }
    fn flush(&self) {
        let _held = self.0.lock().unwrap_or_else(|e| e.into_inner());
    }
}

/// A sink whose `flush` panics.
struct PanickyFlush;

impl Sink for PanickyFlush {
    fn emit(&self, _: &elide::Record<'_>) {}
    fn flush(&self) {
        panic!("flush of the panicky sink");
    }
}

/// A panic payload whose drop panics again: whoever contains the first
/// panic must not let the second one out.
struct Bomb;

impl Drop for Bomb {
    fn drop(&mut self) {
        panic!("the panic payload's drop panicked");
    }
}

/// A sink, and a `Write`, whose every call panics with a [`Bomb`].
struct Bombs;

impl Sink for Bombs {
    fn emit(&self, _: &elide::Record<'_>) {
        std::panic::panic_any(Bomb);
    }
    fn flush(&self) {
        std::panic::panic_any(Bomb);
    }
}

impl Write for Bombs {
    fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
        std::panic::panic_any(Bomb);
    }
    fn flush(&mut self) -> std::io::Result<()> {
        std::panic::panic_any(Bomb);
    }
}

/// A value whose `Debug` panics.
struct Unprintable;

impl std::fmt::Debug for Unprintable {
    fn fmt(&self, _: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        panic!("Unprintable's Debug panicked");
    }
}

/// The sink of one kind for the fork test.
fn sink_of_kind(kind: &str, path: &str) -> Arc<dyn Sink> {
    match kind {
        "stderr" => Arc::new(elide::sink::ConsoleSink::stderr()),
        "stdout" => Arc::new(elide::sink::ConsoleSink::stdout()),
        "file" => Arc::new(FileSink::open(path).expect("open log")),
        "durable" => Arc::new(AsyncSink::open_durable(path).expect("open log")),
        "sync-durable" => Arc::new(DurableFileSink::open(path).expect("open log")),
        "async" => Arc::new(AsyncSink::open(path).expect("open log")),
        other => panic!("unknown sink kind {other:?}"),
    }
}

/// Two threads log into a sink of `kind` while the main thread forks 40
/// children that log one line of their own and exit at once
/// (`parent_quiet`: the parent's threads stop before the fork). Prints how
/// many children exited within 2 s and kills the others.
#[cfg(unix)]
fn fork_exit(kind: &str, path: &str, parent_quiet: bool) {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::{Duration, Instant};
    extern "C" {
        fn fork() -> i32;
        fn waitpid(pid: i32, status: *mut i32, options: i32) -> i32;
        fn kill(pid: i32, sig: i32) -> i32;
    }
    const WNOHANG: i32 = 1;
    const SIGKILL: i32 = 9;
    install(sink_of_kind(kind, path));
    static STOP: AtomicBool = AtomicBool::new(false);
    let threads: Vec<_> = (0..2)
        .map(|t| {
            std::thread::spawn(move || {
                let mut seq = 0u64;
                while !STOP.load(Ordering::Relaxed) {
                    elide::info!(t, seq, "parent thread {t} record {seq}");
                    seq += 1;
                }
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(20));
    if parent_quiet {
        STOP.store(true, Ordering::Relaxed);
        for t in threads.iter() {
            while !t.is_finished() {
                std::thread::sleep(Duration::from_millis(1));
            }
        }
    }
    let mut children = Vec::new();
    for n in 0..40 {
        // SAFETY: the child only logs and exits.
        let pid = unsafe { fork() };
        if pid == 0 {
            elide::info!(n, "child {n} record");
            std::process::exit(0);
        }
        children.push(pid);
    }
    STOP.store(true, Ordering::Relaxed);
    let start = Instant::now();
    let mut exited = 0;
    while start.elapsed() < Duration::from_secs(2) && exited < children.len() {
        for pid in children.iter_mut().filter(|p| **p > 0) {
            let mut status = 0;
            // SAFETY: waits (without blocking) for a child forked above.
            if unsafe { waitpid(*pid, &mut status, WNOHANG) } == *pid {
                *pid = 0;
                exited += 1;
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    for &pid in children.iter().filter(|p| **p > 0) {
        // SAFETY: kills and reaps a child forked above that still hangs.
        unsafe {
            kill(pid, SIGKILL);
            waitpid(pid, std::ptr::null_mut(), 0);
        }
    }
    for t in threads {
        t.join().unwrap();
    }
    println!("exited={exited} hung={}", children.len() - exited);
}

/// A writer that takes 1 ms per write: about 64 MB/s in 64 KiB batches,
/// slower than four threads can log 6 KB records.
struct Throttled;

impl Write for Throttled {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        std::thread::sleep(std::time::Duration::from_millis(1));
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The process's peak resident memory in KiB (`VmHWM`).
fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// Four threads flood 6 KB records into a throttled async sink under
/// `Drop` with a byte budget (`max` bytes; 0: the default), then report
/// the accounting and the peak resident memory.
fn flood(per_thread: u64, max: usize) {
    let mut b = AsyncSink::builder().overflow(elide::sink::Overflow::Drop);
    if max > 0 {
        b = b.max_bytes(max);
    }
    let sink = Arc::new(b.build(Throttled));
    install(sink.clone());
    let big = "x".repeat(6 * 1024);
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for seq in 0..per_thread {
                    elide::info!(seq, "{big}");
                }
            });
        }
    });
    elide::flush();
    let st = sink.stats();
    println!(
        "emitted={} written={} dropped={} failed={} max_bytes={} peak_rss_kib={}",
        4 * per_thread,
        st.written,
        st.dropped,
        st.failed,
        st.max_bytes,
        peak_rss_kib()
    );
}

/// An output, or a sink, that never returns from a write: a hung disk or
/// network share.
struct Stuck;

impl Write for Stuck {
    fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
        loop {
            std::thread::sleep(std::time::Duration::from_secs(3600));
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Sink for Stuck {
    fn emit(&self, _: &elide::Record<'_>) {
        let _ = Stuck.write(b"");
    }
}

/// Five records into an async sink whose output hangs, with a shutdown
/// timeout of 100 ms: `flush` gives up and says how many records are left.
/// `bytes`: the per-thread rings over a `Write`; `wrapped`: the channel
/// in front of a `Sink`, two records deep under `Drop`.
fn stuck_flush(form: &str) {
    let timeout = std::time::Duration::from_millis(100);
    let sink = Arc::new(match form {
        "wrapped" => AsyncSink::builder()
            .capacity(2)
            .overflow(elide::sink::Overflow::Drop)
            .shutdown_timeout(timeout)
            .wrap(Arc::new(Stuck)),
        _ => AsyncSink::builder().shutdown_timeout(timeout).build(Stuck),
    });
    install(sink.clone());
    for seq in 0..5 {
        elide::info!(seq, "stuck");
        // Each record reaches the writer in turn: the first is in its
        // hands before the next is queued.
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    elide::flush();
    println!("flush returned; dropped={}", sink.stats().dropped);
    std::process::exit(0);
}

/// Records the busy threads of `exit-busy` finished emitting.
static EMITTED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
static EXIT_SINK: std::sync::OnceLock<Arc<AsyncSink>> = std::sync::OnceLock::new();

/// Three threads log as fast as they can while main calls `exit`: an
/// `atexit` handler registered before elide's runs after its exit flush
/// and prints the sink's accounting between two reads of the emitted count.
#[cfg(unix)]
fn exit_busy(path: &str, policy: &str) {
    use std::sync::atomic::Ordering;
    extern "C" {
        fn atexit(callback: extern "C" fn()) -> std::ffi::c_int;
    }
    extern "C" fn after_elide() {
        let before = EMITTED.load(Ordering::SeqCst);
        let s = EXIT_SINK.get().expect("sink").stats();
        let after = EMITTED.load(Ordering::SeqCst);
        println!(
            "emitted_before={before} written={} dropped={} failed={} emitted_after={after}",
            s.written, s.dropped, s.failed
        );
    }
    // SAFETY: registers a valid `extern "C" fn()` that does not unwind
    // (it only reads atomics and prints).
    unsafe {
        atexit(after_elide);
    }
    let sink = Arc::new(match policy {
        // The channel form, in front of a file sink.
        "wrapped" => AsyncSink::wrap(Arc::new(FileSink::open(path).expect("open log"))),
        // Small rings that the busy threads overrun: records are dropped
        // before the exit flush as well as during it.
        "drop" => AsyncSink::builder()
            .overflow(elide::sink::Overflow::Drop)
            .thread_buffer(4096)
            .capacity(16)
            .open(path)
            .expect("open log"),
        _ => AsyncSink::open(path).expect("open log"),
    });
    let _ = EXIT_SINK.set(sink.clone());
    install(sink);
    for _ in 0..3 {
        std::thread::spawn(|| {
            for seq in 0.. {
                elide::info!(seq, "busy");
                EMITTED.fetch_add(1, Ordering::SeqCst);
            }
        });
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    std::process::exit(0);
}

/// Sinks whose `emit` panics on every record, each in its own place.
struct PanickyEmitA;
struct PanickyEmitB;

impl Sink for PanickyEmitA {
    fn emit(&self, _: &elide::Record<'_>) {
        panic!("emit of sink A");
    }
}

impl Sink for PanickyEmitB {
    fn emit(&self, _: &elide::Record<'_>) {
        panic!("emit of sink B");
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |i: usize| args.get(i).map(String::as_str).unwrap_or("");
    match arg(1) {
        // Logs N durable records, drops the guard and exits at once.
        "durable-exit" => {
            let n: u64 = arg(3).parse().unwrap_or(50_000);
            install(Arc::new(AsyncSink::open_durable(arg(2)).expect("open log")));
            let guard = elide::init();
            log_n(n);
            drop(guard);
            std::process::exit(0);
        }
        // Logs N records through the synchronous durable sink and returns:
        // `sync-durable-log PATH N`.
        "sync-durable-log" => {
            install(Arc::new(DurableFileSink::open(arg(2)).expect("open log")));
            log_n(arg(3).parse().expect("a record count"));
        }
        // Logs N records and leaves through `std::process::exit` without a
        // guard: only the exit handler can write the queued/buffered tail.
        "exit-no-guard" => {
            let n: u64 = arg(4).parse().unwrap_or(10_000);
            let sink: Arc<dyn Sink> = match arg(3) {
                "async-durable" => Arc::new(AsyncSink::open_durable(arg(2)).expect("open log")),
                "buffered-file" => Arc::new(FileSink::open(arg(2)).expect("open log")),
                other => panic!("unknown sink {other:?}"),
            };
            install(sink);
            log_n(n);
            std::process::exit(0);
        }
        // Two sinks panic on each of N records: `panicky-emit N`.
        "panicky-emit" => {
            let n: u64 = arg(2).parse().unwrap_or(1_000);
            elide::set_sinks([
                Arc::new(PanickyEmitA) as Arc<dyn Sink>,
                Arc::new(PanickyEmitB),
            ]);
            elide::set_level(LevelFilter::Info);
            log_n(n);
            println!("sink_panics={}", elide::stats().sink_panics);
        }
        // Into a sink of kind `arg(2)` at `arg(3)`: 100 records whose
        // argument's `Debug` panics, each followed by a good one.
        "panicky-value" => {
            install(sink_of_kind(arg(2), arg(3)));
            for seq in 0..100 {
                elide::info!("bad {:?}", Unprintable);
                elide::info!("good {seq}");
            }
            elide::flush();
            println!("sink_panics={}", elide::stats().sink_panics);
        }
        // An async sink wrapping a sink that panics on each of N records:
        // `panicky-wrapped N`.
        "panicky-wrapped" => {
            let n: u64 = arg(2).parse().unwrap_or(1_000);
            let sink = Arc::new(AsyncSink::wrap(Arc::new(PanickyEmitA)));
            install(sink.clone());
            log_n(n);
            elide::flush();
            let s = sink.stats();
            println!(
                "sink_panics={} written={} failed={}",
                elide::stats().sink_panics,
                s.written,
                s.failed
            );
        }
        // Busy threads log while main exits: `exit-busy PATH`.
        #[cfg(unix)]
        "exit-busy" => exit_busy(arg(2), arg(3)),
        "stuck-flush" => stuck_flush(arg(2)),
        // An async sink whose writer thread could not start (the parent
        // sets RUST_MIN_STACK too large to map): `no-writer FORM POLICY`.
        "no-writer" => no_writer(arg(2), arg(3)),
        #[cfg(feature = "otlp")]
        "otlp-stalled" => otlp_stalled(),
        // `otlp-env N`: N records through `RADICAL_LOG_TGT=otlp` (the
        // parent sets the collector), then the guard drops and main
        // returns; prints the longest call.
        "otlp-env" => otlp_env(arg(2).parse().unwrap_or(10_000)),
        // `otlp-api N URL`: the same through the API: a sink built for URL
        // and installed, N records, then the sink removed and dropped.
        #[cfg(feature = "otlp")]
        "otlp-api" => otlp_api(arg(2).parse().unwrap_or(10_000), arg(3)),
        // Floods 6 KB records from 4 threads under Drop: `flood N [max_bytes]`.
        "flood" => flood(
            arg(2).parse().unwrap_or(20_000),
            arg(3).parse().unwrap_or(0),
        ),
        // Forks after logging through an async sink: the child must exit
        // promptly and its `every` clock must run; the parent goes on.
        #[cfg(unix)]
        "fork" => fork_test(arg(2)),
        // A thread logs then panics; main aborts right after: only the
        // panic hook's flush can have written the records.
        "panic-hook" => {
            let n: u64 = arg(3).parse().unwrap_or(1_000);
            // A slow disk, so the queue is never empty when the thread panics.
            let slow = SlowDisk(DurableFile::open(arg(2)).expect("open log"));
            install(Arc::new(AsyncSink::builder().capacity(64).build(slow)));
            if arg(4) != "no-hook" {
                elide::install_panic_hook();
            }
            let _ = std::thread::spawn(move || {
                log_n(n);
                panic!("boom");
            })
            .join();
            std::process::abort();
        }
        // Forked children of a logging process exit promptly.
        #[cfg(unix)]
        "fork-exit" => fork_exit(arg(2), arg(3), arg(4) == "parent-quiet"),
        // A `check!` fails inside a sink's `emit`: the caller gets control
        // back and the failure is counted.
        "check-in-sink" => {
            install(Arc::new(CheckingSink::default()));
            elide::set_debug(true);
            elide::info!("good");
            elide::info!("bad");
            elide::info!("good again");
            let s = elide::stats();
            println!("returned sink_panics={}", s.sink_panics);
            elide::flush();
            println!("flushed");
        }
        // A sink whose flush panics beside a buffered file sink holding 100
        // lines; `arg(3)` says how the process ends.
        "flush-panics" => {
            let file: Arc<dyn Sink> = Arc::new(FileSink::open(arg(2)).expect("open log"));
            elide::set_sinks([Arc::new(PanickyFlush) as Arc<dyn Sink>, file]);
            elide::set_level(LevelFilter::Info);
            log_n(100);
            match arg(3) {
                "flush" => elide::flush(),
                "set-sinks" => elide::set_sinks(Vec::<Arc<dyn Sink>>::new()),
                "guard" => drop(elide::init()),
                _ => {}
            }
            println!("sink_panics={}", elide::stats().sink_panics);
            std::process::exit(0);
        }
        // A sink of FORM (`direct`, `wrapped` in an async sink, or `bytes`:
        // an async sink over a `Write`) that panics with a payload whose own
        // drop panics, next to a file sink; ENDs like `flush-panics`:
        // `bomb PATH FORM END`.
        "bomb" => {
            let file: Arc<dyn Sink> = Arc::new(FileSink::open(arg(2)).expect("open log"));
            let bombs: Arc<dyn Sink> = match arg(3) {
                "direct" => Arc::new(Bombs),
                "wrapped" => Arc::new(AsyncSink::wrap(Arc::new(Bombs))),
                _ => Arc::new(AsyncSink::new(Bombs)),
            };
            elide::set_sinks([bombs, file]);
            elide::set_level(LevelFilter::Info);
            // Twice, so a writer thread that died in the first flush shows.
            log_n(10);
            elide::flush();
            log_n(10);
            match arg(4) {
                "flush" => elide::flush(),
                "set-sinks" => elide::set_sinks(Vec::<Arc<dyn Sink>>::new()),
                _ => {}
            }
            println!("sink_panics={}", elide::stats().sink_panics);
            std::process::exit(0);
        }
        // Every write fails with ENOSPC.
        "dev-full-async" => {
            let file = File::options()
                .write(true)
                .open("/dev/full")
                .expect("open /dev/full");
            let sink = Arc::new(AsyncSink::builder().name("/dev/full").build(file));
            install(sink.clone());
            log_n(1_000);
            elide::flush();
            log_n(1_000);
            elide::flush();
            let s = sink.stats();
            print_stats(&format!(
                "written={} failed={} dropped={}",
                s.written, s.failed, s.dropped
            ));
        }
        "dev-full-sync" => {
            let file = File::options()
                .write(true)
                .open("/dev/full")
                .expect("open /dev/full");
            let sink = Arc::new(DurableFileSink::from_file(file, "/dev/full"));
            install(sink.clone());
            log_n(2_000);
            print_stats(&format!(
                "written={} failed={}",
                sink.written(),
                sink.failed()
            ));
        }
        // stdout is a pipe the parent has closed: every write is EPIPE.
        "closed-pipe" => {
            let sink = Arc::new(AsyncSink::builder().name("stdout").build(std::io::stdout()));
            install(sink.clone());
            log_n(2_000);
            elide::flush();
            let s = sink.stats();
            // stdout is gone: report on stderr.
            let _ = writeln!(
                std::io::stderr(),
                "write_errors={} written={} failed={} dropped={}",
                elide::stats().write_errors,
                s.written,
                s.failed,
                s.dropped
            );
        }
        // The application holds stdout's lock across two writes of one line
        // while elide logs to stdout from another thread.
        "stdout-locked" => {
            install(Arc::new(elide::sink::ConsoleSink::stdout()));
            let (locked_tx, locked_rx) = std::sync::mpsc::channel();
            let app = std::thread::spawn(move || {
                let mut out = std::io::stdout().lock();
                write!(out, "app part one, ").unwrap();
                locked_tx.send(()).unwrap();
                std::thread::sleep(std::time::Duration::from_millis(200));
                writeln!(out, "app part two").unwrap();
            });
            locked_rx.recv().unwrap();
            elide::info!("elide line");
            app.join().unwrap();
        }
        other => {
            eprintln!("sink_child: unknown mode {other:?}");
            std::process::exit(2);
        }
    }
}

/// 100 records into an async sink (`bytes`: the per-thread rings over a
/// `Write`; `wrapped`: the channel in front of a `Sink`, four records deep)
/// with no writer thread, then a flush and a normal exit. Prints the sink's
/// counters after the flush; the parent checks that nothing hung.
fn no_writer(form: &str, policy: &str) {
    use elide::sink::{MemorySink, Overflow};
    let policy = match policy {
        "block" => Overflow::Block,
        _ => Overflow::Drop,
    };
    let sink = Arc::new(match form {
        "wrapped" => AsyncSink::builder()
            .capacity(4)
            .max_bytes(1024)
            .overflow(policy)
            .wrap(Arc::new(MemorySink::new())),
        _ => AsyncSink::builder().overflow(policy).build(std::io::sink()),
    });
    install(sink.clone());
    log_n(100);
    elide::flush();
    let s = sink.stats();
    println!("written={} dropped={}", s.written, s.dropped);
}

/// Now, in nanoseconds since the Unix epoch (the parent compares it with
/// when it saw the process end).
fn unix_ns() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
}

/// N records from this thread; prints the longest call and when the last
/// one returned.
fn log_timed(n: u64) {
    let mut longest = std::time::Duration::ZERO;
    for seq in 0..n {
        let t = std::time::Instant::now();
        elide::info!(seq, "record {seq}");
        longest = longest.max(t.elapsed());
    }
    println!(
        "emitted={n} longest_call_us={} emitted_unix_ns={}",
        longest.as_micros(),
        unix_ns()
    );
}

/// `otlp-env N`: the sinks from the environment (the parent names an
/// `otlp` target and its collector), N records from main, the longest
/// call printed; the guard's drop and the exit handler then bound the end.
fn otlp_env(n: u64) {
    let guard = elide::init();
    log_timed(n);
    // The env-built sink, found without a handle.
    #[cfg(feature = "otlp")]
    for (url, _) in elide::sink::OtlpSink::installed_stats() {
        println!("installed={url}");
    }
    drop(guard);
}

/// `otlp-api N URL`: an OTLP sink built through the API for URL (its
/// defaults) and installed as the only sink, N records from main, the
/// longest call printed; then the sink is taken out and dropped, which
/// bounds the end and writes the summary line (from its `stats()`).
#[cfg(feature = "otlp")]
fn otlp_api(n: u64, url: &str) {
    let sink = Arc::new(
        elide::sink::OtlpSink::builder(url)
            .build()
            .expect("a valid endpoint"),
    );
    install(sink.clone());
    log_timed(n);
    for (url, _) in elide::sink::OtlpSink::installed_stats() {
        println!("installed={url}");
    }
    elide::set_sinks([]);
    drop(sink);
}

/// `otlp-stalled`: an OTLP sink whose collector takes connections and
/// never answers, so every request times out. A flush with nothing queued,
/// then three records (a batch each) and a flush that gives up before they
/// are all tried; the parent reads the warnings on stderr.
#[cfg(feature = "otlp")]
fn otlp_stalled() {
    use std::time::Duration;
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("listen");
    let port = l.local_addr().unwrap().port();
    std::thread::spawn(move || {
        // Every connection stays open, unanswered.
        let mut held = Vec::new();
        for c in l.incoming() {
            held.push(c);
        }
    });
    let sink = elide::sink::OtlpSink::builder(&format!("http://127.0.0.1:{port}"))
        .batch_size(1)
        .retry_for(Duration::ZERO)
        .request_timeout(Duration::from_millis(200))
        .shutdown_timeout(Duration::from_millis(300))
        .build()
        .expect("a valid endpoint");
    install(Arc::new(sink));
    elide::flush();
    log_n(3);
    elide::flush();
    elide::set_sinks([]);
}
