//! What a measuring child process does (one exporter per process: a
//! `tracing` global subscriber can be set only once). Each mode installs
//! the exporter, warms it up with [`WARM`] calls and a flush (thread
//! start-up, connections, first hits), then:
//!
//! - `caller LIB ENDPOINT CALLS ROUNDS`: per round, ns per call of a loop
//!   of CALLS calls (timed as a whole, no timer inside), then a flush
//!   outside the timed region so every round starts with an empty queue;
//! - `burst LIB ENDPOINT N THREADS`: N calls spread over THREADS threads as
//!   fast as they go, then a flush; prints when it started (Unix ns), for
//!   the harness to compare with the receiver's last arrival, and its peak
//!   resident set;
//! - `count LIB ENDPOINT N`: N calls in the loop callgrind collects inside.
//!
//! Every mode ends with a line `lost ...`: what the exporter says it lost.

use std::time::{Instant, SystemTime, UNIX_EPOCH};

use crate::exporters::Exporter;

/// Calls before anything is measured.
pub(crate) const WARM: u64 = 1_000;

/// Runs the child mode in `args` (after `--child`).
pub(crate) fn run(args: &[String]) {
    let arg = |i: usize| -> &str {
        args.get(i)
            .map(String::as_str)
            .unwrap_or_else(|| fail(&format!("argument {i} missing: {args:?}")))
    };
    let num = |i: usize| -> u64 {
        arg(i)
            .parse()
            .unwrap_or_else(|_| fail(&format!("argument {i} must be a number: {args:?}")))
    };
    let ex = Exporter::install(arg(1), arg(2));
    let site = ex.site();
    for i in 0..WARM {
        site(i);
    }
    ex.flush();
    match arg(0) {
        "caller" => {
            let hot = ex.hot();
            for _ in 0..num(4) {
                let t = Instant::now();
                hot(num(3));
                println!("{}", t.elapsed().as_nanos() as f64 / num(3) as f64);
                ex.flush();
            }
        }
        "burst" => {
            let (n, threads) = (num(3), num(4));
            let start = SystemTime::now();
            let handles: Vec<_> = (0..threads)
                .map(|t| {
                    let (from, to) = (n * t / threads, n * (t + 1) / threads);
                    std::thread::spawn(move || {
                        for i in from..to {
                            site(std::hint::black_box(i));
                        }
                    })
                })
                .collect();
            for h in handles {
                h.join().expect("burst thread");
            }
            ex.flush();
            println!("start {}", unix_ns(start));
            if let Some(kb) = peak_rss_kb() {
                println!("rss_kb {kb}");
            }
        }
        "count" => {
            ex.hot()(num(3));
            ex.flush();
        }
        other => fail(&format!("unknown mode {other:?}")),
    }
    println!("lost {}", ex.lost());
    ex.shutdown();
}

/// The process's peak resident set (Linux: `VmHWM` of /proc/self/status).
fn peak_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

pub(crate) fn unix_ns(t: SystemTime) -> u128 {
    t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos())
}

fn fail(msg: &str) -> ! {
    eprintln!("benchmark child: {msg}");
    std::process::exit(2)
}
