//! spdlog-rs, the asynchronous peer issue 14 names, in the caller-cycles
//! rows: `info!(logger: .., "task {} done in {} us", id, us)` into an
//! `AsyncPoolSink` over a `FileSink`.
//!
//! Its best configuration for a burst: a logger built once and passed to the
//! site (no `Arc` clone of the default logger per call), a thread pool of its
//! own whose channel holds the whole burst (so, like elide's 8 MiB buffers,
//! it never measures the disk), `OverflowPolicy::Block` (nothing lost), and a
//! 64 KiB file buffer on the pool's thread. The caller renders the message
//! into a `String`, reads the clock, copies the record into an owned one and
//! sends it on a crossbeam channel; the pool's thread formats the line (its
//! default `FullFormatter`: `[local date time.millis] [logger] [level]
//! message`) and writes it.

use std::num::NonZeroUsize;
use std::path::Path;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use spdlog::sink::{AsyncPoolSink, FileSink, OverflowPolicy, Sink};
use spdlog::{Level, LevelFilter, Logger, ThreadPool};

use crate::cycles::{measure, CycleRow};

/// One logger per run (one thread, two threads): each run ends by draining
/// and stopping its pool, which cannot be restarted.
static LOGGERS: [OnceLock<Arc<Logger>>; 2] = [OnceLock::new(), OnceLock::new()];

fn site<const RUN: usize>(i: u64) {
    let us = (i * 7) as u32;
    let logger = LOGGERS[RUN].get().expect("the run built its logger");
    spdlog::info!(logger: logger, "task {} done in {} us", i, us);
}

fn count_lines(path: &Path) -> u64 {
    std::fs::read(path)
        .map(|b| b.iter().filter(|&&c| c == b'\n').count() as u64)
        .unwrap_or(0)
}

/// Both runs, one thread then two; panics if a line is missing.
pub(crate) fn rows(dir: &Path, calls: u64) -> Vec<CycleRow> {
    let runs: [(usize, fn(u64)); 2] = [(1, site::<0>), (2, site::<1>)];
    runs.into_iter()
        .enumerate()
        .map(|(run, (threads, call))| {
            let path = dir.join(format!("spdlog-cycles-{threads}.log"));
            let _ = std::fs::remove_file(&path);
            let expected = threads as u64 * (2 * calls + 1_000);
            let file = FileSink::builder()
                .path(&path)
                .truncate(true)
                .capacity(64 * 1024)
                .build_arc()
                .expect("open log");
            let pool = ThreadPool::builder()
                .capacity(NonZeroUsize::new(expected as usize).expect("calls > 0"))
                .build_arc()
                .expect("start spdlog-rs's thread pool");
            let sink = AsyncPoolSink::builder()
                .sink(file)
                .thread_pool(pool)
                .overflow_policy(OverflowPolicy::Block)
                .build_arc()
                .expect("an AsyncPoolSink");
            let logger = Logger::builder()
                .name("elide_bench_sinks::spdlog_peer")
                .sink(sink.clone())
                .level_filter(LevelFilter::MoreSevereEqual(Level::Info))
                .build_arc()
                .expect("a valid logger");
            assert!(LOGGERS[run].set(logger).is_ok(), "one logger per run");
            std::thread::sleep(Duration::from_millis(30));
            let (per_call, loop_per_call) = measure(threads, calls, call);
            // spdlog-rs's exit path: stop the pool after it has drained
            // every queued record, then flush the file.
            sink.flush_on_exit().expect("drain spdlog-rs's pool");
            assert_eq!(count_lines(&path), expected, "spdlog-rs lost lines");
            let _ = std::fs::remove_file(&path);
            CycleRow {
                name:
                    "spdlog-rs AsyncPoolSink + FileSink (own pool, channel holds the burst, Block)"
                        .into(),
                threads,
                per_call,
                loop_per_call,
            }
        })
        .collect()
}
