//! Durable logging, side by side in one run: N INFO lines that must end up
//! on disk, through
//! 1. elide's synchronous [`DurableFileSink`] (the caller waits for fsync),
//! 2. elide's [`AsyncSink`] from `AsyncSink::open_durable` (over a `DurableFile`: group commit),
//! 3. `tracing` + `tracing-appender` `non_blocking` over a writer that
//!    fsyncs each write (its only way to be durable).
//!
//! For each: caller latency per line (p50/p99/p999/max, in microseconds,
//! measured with `Instant` around each call, so a timer read is included),
//! caller wall time, time from the first line until everything is durable
//! (the flush / guard drop returned with every line on disk), and lines
//! missing from the file at that point.
//!
//! Then the caller cost of a two-integer `info!` into an asynchronous file
//! sink in CPU cycles, one and two threads, beside tracing-appender and
//! spdlog-rs's `AsyncPoolSink` (`cycles.rs`, `spdlog_peer.rs`; `--cycles-calls N` per thread, default 50,000;
//! `--only-cycles` skips the durable rows).
//!
//! `cargo run --release -p elide-bench-sinks -- [--lines N] [--sync-lines M] [--dir D] [--svg PATH]`
//! The table goes to stdout, a latency-percentile chart to `--svg` (default
//! `target/elide-bench-sinks.svg`, relative to the working directory).
//! The synchronous row pays one fsync per line (milliseconds on some
//! disks), so it runs `--sync-lines` lines (default 1,000); its per-call
//! latencies do not depend on the count.

mod chart;
mod cycles;
mod spdlog_peer;
#[path = "../../svg.rs"]
mod svg;

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use elide::sink::{AsyncSink, DurableFileSink};
use elide::{LevelFilter, Sink};

struct Row {
    name: String,
    lines: usize,
    latencies_ns: Vec<u64>,
    caller_wall: Duration,
    durable_after: Option<Duration>,
    lost: usize,
}

fn pct(sorted: &[u64], p: f64) -> f64 {
    let i = ((sorted.len() as f64 * p) as usize).min(sorted.len() - 1);
    sorted[i] as f64 / 1000.0
}

fn count_lines(path: &Path) -> usize {
    std::fs::read(path)
        .map(|b| b.iter().filter(|&&c| c == b'\n').count())
        .unwrap_or(0)
}

fn fresh(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    path
}

/// Times each of `n` calls of `f(i)`; returns the latencies and the wall time.
fn timed(n: usize, mut f: impl FnMut(u64)) -> (Vec<u64>, Duration, Instant) {
    let mut lat = Vec::with_capacity(n);
    let start = Instant::now();
    for i in 0..n as u64 {
        let t0 = Instant::now();
        f(i);
        lat.push(t0.elapsed().as_nanos() as u64);
    }
    (lat, start.elapsed(), start)
}

fn elide_sync(dir: &Path, n: usize) -> Row {
    let path = fresh(dir, "elide-sync.log");
    let sink = Arc::new(DurableFileSink::open(&path).expect("open log"));
    elide::set_sinks([sink as Arc<dyn Sink>]);
    let (lat, wall, start) = timed(n, |i| elide::info!(seq = i, "record {i}"));
    elide::flush();
    let durable = start.elapsed();
    let lost = n - count_lines(&path);
    Row {
        name: "elide DurableFileSink (sync, fsync per record)".into(),
        lines: n,
        latencies_ns: lat,
        caller_wall: wall,
        durable_after: (lost == 0).then_some(durable),
        lost,
    }
}

fn elide_async(dir: &Path, n: usize) -> Row {
    let path = fresh(dir, "elide-async.log");
    let sink = AsyncSink::open_durable(&path).expect("open log");
    let name = "elide AsyncSink + DurableFile (group commit), defaults".to_owned();
    let sink = Arc::new(sink);
    elide::set_sinks([sink.clone() as Arc<dyn Sink>]);
    // What a program's `init()` guard does at exit: flush, no time limit.
    let (lat, wall, start) = timed(n, |i| elide::info!(seq = i, "record {i}"));
    elide::flush();
    let durable = start.elapsed();
    let lost = n - count_lines(&path);
    let stats = sink.stats();
    assert_eq!(stats.dropped + stats.failed, 0, "{stats:?}");
    elide::set_sinks([]);
    Row {
        name,
        lines: n,
        latencies_ns: lat,
        caller_wall: wall,
        durable_after: (lost == 0).then_some(durable),
        lost,
    }
}

/// A file that is durable the only way a plain `Write` can be: fsync after
/// every write.
struct FsyncEachWrite(File);

impl Write for FsyncEachWrite {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.0.write(buf)?;
        self.0.sync_data()?;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.0.sync_data()
    }
}

fn tracing_appender_row(dir: &Path, n: usize) -> Row {
    let path = fresh(dir, "tracing-appender.log");
    let file = File::options()
        .create(true)
        .append(true)
        .open(&path)
        .expect("open log");
    let (writer, guard) = tracing_appender::non_blocking(FsyncEachWrite(file));
    let subscriber = tracing_subscriber::fmt()
        .with_writer(writer)
        .with_ansi(false)
        .with_max_level(tracing::Level::INFO)
        .finish();
    let (lat, wall, start) = tracing::subscriber::with_default(subscriber, || {
        timed(n, |i| tracing::info!(seq = i, "record {i}"))
    });
    // The guard's drop is tracing-appender's flush at exit.
    drop(guard);
    let at_exit = start.elapsed();
    let lost = n - count_lines(&path);
    Row {
        name: "tracing + tracing-appender non_blocking (fsync per write)".into(),
        lines: n,
        latencies_ns: lat,
        caller_wall: wall,
        durable_after: (lost == 0).then_some(at_exit),
        lost,
    }
}

fn timer_overhead(n: usize) -> Row {
    let (lat, wall, _) = timed(n, |i| {
        std::hint::black_box(i);
    });
    Row {
        name: "(timer alone: Instant around an empty call)".into(),
        lines: n,
        latencies_ns: lat,
        caller_wall: wall,
        durable_after: None,
        lost: 0,
    }
}

/// The chart's view of the rows: latency at each percentile, then the max.
fn series(rows: &[Row]) -> Vec<chart::Series> {
    rows.iter()
        .map(|r| chart::Series {
            name: format!("{} ({} lines)", r.name, r.lines),
            us: chart::PERCENTILES
                .iter()
                .map(|(p, _)| pct(&r.latencies_ns, *p))
                .chain([*r.latencies_ns.last().unwrap() as f64 / 1000.0])
                .collect(),
        })
        .collect()
}

fn print(rows: &mut [Row]) {
    println!(
        "| sink | lines | caller p50 (us) | p99 | p999 | max | caller wall (ms) | all durable after (ms) | lost |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for r in rows {
        r.latencies_ns.sort_unstable();
        let l = &r.latencies_ns;
        let durable = match (r.durable_after, r.lost) {
            (Some(d), _) => format!("{:.1}", d.as_secs_f64() * 1e3),
            (None, 0) => "-".into(),
            (None, _) => "never (lost at exit)".into(),
        };
        println!(
            "| {} | {} | {:.3} | {:.3} | {:.3} | {:.1} | {:.1} | {} | {} |",
            r.name,
            r.lines,
            pct(l, 0.50),
            pct(l, 0.99),
            pct(l, 0.999),
            *l.last().unwrap() as f64 / 1000.0,
            r.caller_wall.as_secs_f64() * 1e3,
            durable,
            r.lost
        );
    }
}

fn main() {
    let mut lines = 50_000usize;
    let mut sync_lines = 1_000usize;
    let mut dir = std::env::temp_dir().join("elide-bench-sinks");
    let mut svg = PathBuf::from("target/elide-bench-sinks.svg");
    let mut cycles_calls = 50_000u64;
    let mut only_cycles = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--only-cycles" {
            only_cycles = true;
            continue;
        }
        let v = args.next().unwrap_or_default();
        match a.as_str() {
            "--lines" => lines = v.parse().expect("--lines N"),
            "--sync-lines" => sync_lines = v.parse().expect("--sync-lines N"),
            "--dir" => dir = PathBuf::from(v),
            "--svg" => svg = PathBuf::from(v),
            "--cycles-calls" => cycles_calls = v.parse().expect("--cycles-calls N"),
            other => panic!("unknown argument {other}"),
        }
    }
    std::fs::create_dir_all(&dir).expect("create bench dir");
    elide::set_level(LevelFilter::Info);
    if only_cycles {
        let ticks = cycles::ticks_per_ns();
        cycles::print(&cycles::rows(&dir, cycles_calls), ticks);
        std::process::exit(0);
    }
    let mut rows = vec![
        timer_overhead(lines),
        elide_sync(&dir, sync_lines),
        elide_async(&dir, lines),
        tracing_appender_row(&dir, lines),
    ];
    print(&mut rows);
    let note = format!(
        "{} INFO lines that must be durable; Instant around each call. {} CPUs.",
        lines,
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    if let Some(parent) = svg.parent() {
        let _ = std::fs::create_dir_all(parent);
    }
    match std::fs::write(&svg, chart::svg(&series(&rows), &note)) {
        Ok(()) => eprintln!("wrote {}", svg.display()),
        Err(e) => eprintln!("could not write {}: {e}", svg.display()),
    }
    let ticks = cycles::ticks_per_ns();
    cycles::print(&cycles::rows(&dir, cycles_calls), ticks);
    // tracing-appender's worker may still be fsyncing: exit without it.
    std::process::exit(0);
}
