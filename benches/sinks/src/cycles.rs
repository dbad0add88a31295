//! Caller cost of `info!("task {} done in {} us", id, us)` into an
//! asynchronous file sink, in CPU cycles: each call between two `rdtsc`
//! reads (percentiles), and a loop of the same calls timed as a whole
//! (throughput per call, no timer inside). One thread, then two threads at
//! once, each with its own numbers; elide beside tracing + tracing-appender
//! `non_blocking` and spdlog-rs's `AsyncPoolSink` (`spdlog_peer.rs`) in the
//! same run. All hold the whole burst in memory (elide: an 8 MiB buffer per
//! thread, and again with the defaults, whose 1 MiB per thread the burst
//! overruns, so the writer drains to the file meanwhile; tracing-appender: its default 128,000-line channel, lossy;
//! spdlog-rs: a channel sized to the burst), so none measures its disk.

use std::fs::File;
use std::path::Path;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use elide::sink::AsyncSink;
use elide::Sink;

/// One measured configuration.
pub(crate) struct CycleRow {
    pub(crate) name: String,
    pub(crate) threads: usize,
    /// Per-call cycles, all threads together, sorted.
    pub(crate) per_call: Vec<u64>,
    /// Per-thread loop cycles per call (no timer inside the loop).
    pub(crate) loop_per_call: Vec<f64>,
}

#[inline(always)]
fn tsc() -> u64 {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `rdtsc` has no preconditions; the fences keep the timed call
    // between the two reads.
    #[allow(unused_unsafe)]
    unsafe {
        core::arch::x86_64::_mm_lfence();
        let t = core::arch::x86_64::_rdtsc();
        core::arch::x86_64::_mm_lfence();
        t
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        0
    }
}

/// Counter ticks per nanosecond, measured over 200 ms.
pub(crate) fn ticks_per_ns() -> f64 {
    let (t0, i0) = (tsc(), Instant::now());
    std::thread::sleep(Duration::from_millis(200));
    (tsc() - t0) as f64 / i0.elapsed().as_nanos() as f64
}

/// Runs `calls` timed calls and then `calls` untimed ones on each of
/// `threads` threads started together.
pub(crate) fn measure(threads: usize, calls: u64, call: fn(u64)) -> (Vec<u64>, Vec<f64>) {
    let barrier = Arc::new(Barrier::new(threads));
    let handles: Vec<_> = (0..threads)
        .map(|_| {
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                // Warm-up: the thread's buffer, the site, the caches.
                for i in 0..1_000 {
                    call(i);
                }
                std::thread::sleep(Duration::from_millis(50));
                barrier.wait();
                let mut lat = Vec::with_capacity(calls as usize);
                for i in 0..calls {
                    let t0 = tsc();
                    call(i);
                    lat.push(tsc() - t0);
                }
                // Let the writer catch up, then the untimed loop.
                std::thread::sleep(Duration::from_millis(300));
                barrier.wait();
                let t0 = tsc();
                for i in 0..calls {
                    call(std::hint::black_box(i));
                }
                let per_call = (tsc() - t0) as f64 / calls as f64;
                (lat, per_call)
            })
        })
        .collect();
    let mut all = Vec::new();
    let mut loops = Vec::new();
    for h in handles {
        let (lat, per_call) = h.join().expect("bench thread");
        all.extend(lat);
        loops.push(per_call);
    }
    all.sort_unstable();
    (all, loops)
}

fn timer_alone(calls: u64) -> CycleRow {
    let (per_call, loop_per_call) = measure(1, calls, |i| {
        std::hint::black_box(i);
    });
    CycleRow {
        name: "(timer alone: rdtsc pair around an empty call)".into(),
        threads: 1,
        per_call,
        loop_per_call,
    }
}

fn elide_site(i: u64) {
    let us = (i * 7) as u32;
    elide::info!("task {} done in {} us", i, us);
}

/// elide's rows: the whole burst in an 8 MiB buffer per thread, then the
/// defaults as a user writes them (`AsyncSink::open(path)`: a 1 MiB buffer
/// per thread, which the burst overruns, so the writer drains to the file
/// while the callers log, and `Block` makes a caller wait when it is full).
fn elide_rows(dir: &Path, calls: u64) -> Vec<CycleRow> {
    let mut rows = Vec::new();
    for (defaults, threads) in [(false, 1), (false, 2), (true, 1), (true, 2)] {
        let path = dir.join(format!("elide-cycles-{threads}.log"));
        let _ = std::fs::remove_file(&path);
        let sink = Arc::new(if defaults {
            AsyncSink::open(&path).expect("open log")
        } else {
            AsyncSink::builder()
                .thread_buffer(8 << 20)
                .open(&path)
                .expect("open log")
        });
        elide::set_sinks([sink.clone() as Arc<dyn Sink>]);
        // The writer calibrates the cheap clock in its first 10 ms.
        std::thread::sleep(Duration::from_millis(30));
        let (per_call, loop_per_call) = measure(threads, calls, elide_site);
        elide::flush();
        let s = sink.stats();
        let expected = threads as u64 * (2 * calls + 1_000);
        assert_eq!((s.written, s.dropped), (expected, 0), "{s:?}");
        elide::set_sinks([]);
        let _ = std::fs::remove_file(&path);
        rows.push(CycleRow {
            name: if defaults {
                "elide AsyncSink::open(path), defaults, writer draining".into()
            } else {
                "elide AsyncSink::open, thread_buffer 8 MiB".into()
            },
            threads,
            per_call,
            loop_per_call,
        });
    }
    rows
}

fn tracing_site(i: u64) {
    let us = (i * 7) as u32;
    tracing::info!("task {} done in {} us", i, us);
}

fn tracing_rows(dir: &Path, calls: u64) -> Vec<CycleRow> {
    let path = dir.join("tracing-cycles.log");
    let _ = std::fs::remove_file(&path);
    let file = File::create(&path).expect("open log");
    let (writer, guard) = tracing_appender::non_blocking(file);
    let subscriber = tracing_subscriber::fmt()
        .with_writer(writer)
        .with_ansi(false)
        .with_max_level(tracing::Level::INFO)
        .finish();
    // Global (once per process): the bench threads must see it.
    tracing::subscriber::set_global_default(subscriber).expect("first global subscriber");
    let rows = [1, 2]
        .map(|threads| {
            let (per_call, loop_per_call) = measure(threads, calls, tracing_site);
            CycleRow {
                name: "tracing + tracing-appender non_blocking (File, lossy default)".into(),
                threads,
                per_call,
                loop_per_call,
            }
        })
        .into();
    drop(guard);
    let _ = std::fs::remove_file(&path);
    rows
}

/// All rows, in run order.
pub(crate) fn rows(dir: &Path, calls: u64) -> Vec<CycleRow> {
    let mut rows = vec![timer_alone(calls)];
    rows.extend(elide_rows(dir, calls));
    rows.extend(tracing_rows(dir, calls));
    rows.extend(crate::spdlog_peer::rows(dir, calls));
    rows
}

fn pct(sorted: &[u64], p: f64) -> u64 {
    sorted[((sorted.len() as f64 * p) as usize).min(sorted.len() - 1)]
}

/// The table, cycles and nanoseconds.
pub(crate) fn print(rows: &[CycleRow], ticks_per_ns: f64) {
    println!();
    println!(
        "Caller cost of `info!(\"task {{}} done in {{}} us\", id, us)`, cycles (ns at {ticks_per_ns:.2} cycles/ns):"
    );
    println!("| sink | threads | p50 | p99 | p99.9 | max | loop, per call per thread |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    let ns = |c: f64| c / ticks_per_ns;
    for r in rows {
        let l = &r.per_call;
        let cell = |c: u64| format!("{} ({:.1} ns)", c, ns(c as f64));
        let loops: Vec<String> = r
            .loop_per_call
            .iter()
            .map(|&c| format!("{c:.0} ({:.1} ns)", ns(c)))
            .collect();
        println!(
            "| {} | {} | {} | {} | {} | {} | {} |",
            r.name,
            r.threads,
            cell(pct(l, 0.50)),
            cell(pct(l, 0.99)),
            cell(pct(l, 0.999)),
            cell(*l.last().unwrap_or(&0)),
            loops.join(", ")
        );
    }
}
