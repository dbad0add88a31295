//! Sampling options on log sites: `sample = N`, `first = N`, `once`,
//! `every = <Duration>`. Tests here run one at a time: most replace the
//! global sinks, and the installed sinks would also see the records of a
//! test that only captures (the configuration lets them through).

use elide_tests::serial;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, MutexGuard};
use std::time::{Duration, Instant};

use elide::sink::MemorySink;
use elide::{info, LevelFilter, Sink};

/// Serialises the tests and installs a fresh memory sink at `Info`.
fn capture() -> (MutexGuard<'static, ()>, Arc<MemorySink>) {
    let guard = serial();
    let mem = Arc::new(MemorySink::new());
    elide::set_sinks([mem.clone() as Arc<dyn Sink>]);
    elide::set_level(LevelFilter::Info);
    (guard, mem)
}

#[test]
fn sample_passes_the_first_of_every_n_hits() {
    let _s = serial();
    let evaluated = AtomicU32::new(0);
    let records = elide::testing::capture(|| {
        for i in 0..10_000 {
            info!(sample = 100, "hit {}", {
                evaluated.fetch_add(1, Ordering::Relaxed);
                i
            });
        }
    });
    let expected: Vec<String> = (0..100).map(|k| format!("hit {}", k * 100)).collect();
    assert_eq!(records.messages(), expected);
    // Sampled-out hits never build their arguments.
    assert_eq!(evaluated.load(Ordering::Relaxed), 100);
}

#[test]
fn sample_counts_per_thread_within_documented_bounds() {
    let (_s, mem) = capture();
    const THREADS: u64 = 4;
    const N: u64 = 100;
    let hits: Vec<u64> = (0..THREADS).map(|t| 10_000 + 37 * t).collect();
    let ids: Vec<u64> = std::thread::scope(|s| {
        let handles: Vec<_> = hits
            .iter()
            .map(|&h| {
                s.spawn(move || {
                    for _ in 0..h {
                        info!(sample = 100, "mt");
                    }
                    elide::thread_number()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut per_thread: HashMap<u64, u64> = HashMap::new();
    for r in mem.records() {
        *per_thread.entry(r.thread).or_default() += 1;
    }
    // Each thread counts its own hits: exactly ceil(hits / N) pass on it.
    for (id, h) in ids.iter().zip(&hits) {
        assert_eq!(
            per_thread.get(id).copied(),
            Some(h.div_ceil(N)),
            "thread {id}"
        );
    }
    // So the total is within THREADS of total_hits / N.
    let total: u64 = per_thread.values().sum();
    let all: u64 = hits.iter().sum();
    assert!(all / N <= total && total <= all / N + THREADS, "{total}");
}

#[test]
fn first_and_once_pass_a_fixed_number_over_all_threads() {
    let (_s, mem) = capture();
    for i in 0..100 {
        info!(first = 5, "first {i}");
        info!(once, "once {i}");
    }
    assert_eq!(
        mem.take()
            .iter()
            .map(|r| r.message.as_str())
            .collect::<Vec<_>>(),
        ["first 0", "once 0", "first 1", "first 2", "first 3", "first 4"]
    );

    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for _ in 0..10_000 {
                    info!(first = 7, "shared quota");
                }
            });
        }
    });
    assert_eq!(mem.len(), 7);
}

#[test]
fn every_passes_at_most_one_hit_per_period() {
    let (_s, mem) = capture();
    const PERIOD_MS: u64 = 25;
    // Start the coarse clock's ticker before measuring.
    info!(every = Duration::from_millis(1), "warm-up");
    std::thread::sleep(Duration::from_millis(5));
    mem.clear();

    let start = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                // Liveness with a generous deadline: stop after 5 passes.
                while mem.len() < 5 && start.elapsed() < Duration::from_secs(20) {
                    info!(every = Duration::from_millis(PERIOD_MS), "tick");
                }
            });
        }
    });
    let span_ms = start.elapsed().as_millis() as u64;
    let passed = mem.len() as u64;
    assert!(
        passed >= 5,
        "later periods must pass again ({passed} in {span_ms} ms)"
    );
    // The first hit passes at once, then at most one per full period; one
    // extra for the clock's millisecond granularity.
    assert!(
        passed <= span_ms / PERIOD_MS + 2,
        "{passed} passed in {span_ms} ms with a {PERIOD_MS} ms period"
    );
}

#[test]
fn sampling_state_advances_only_while_the_site_is_enabled() {
    let (_s, mem) = capture();
    // One site: hits while its level is off must not use up its quota.
    for level in [LevelFilter::Warn, LevelFilter::Info] {
        elide::set_level(level);
        for _ in 0..5 {
            info!(first = 3, "quota");
            info!(once, "once");
            info!(sample = 2, "half");
        }
    }
    let count = |m: &str| mem.messages().iter().filter(|x| *x == m).count();
    assert_eq!(count("quota"), 3);
    assert_eq!(count("once"), 1);
    assert_eq!(count("half"), 3);
}

/// Repeats `$e` 4^k times, each a distinct call site.
macro_rules! x4 {
    ($e:expr) => {{
        $e;
        $e;
        $e;
        $e;
    }};
}

/// 1,024 `once` sites.
fn all_once_sites() {
    x4!(x4!(x4!(x4!(x4!(info!(once, "fired"))))));
}

/// Hits that race on a site whose level is off spend nothing: 1,024 `once`
/// sites hit by 4 threads at once while off all fire once turned on.
#[test]
fn once_is_not_used_up_by_racing_hits_while_off() {
    let (_s, mem) = capture();
    elide::set_level(LevelFilter::Off);
    let barrier = std::sync::Barrier::new(4);
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                barrier.wait();
                all_once_sites();
            });
        }
    });
    assert_eq!(mem.len(), 0);
    elide::set_level(LevelFilter::Info);
    all_once_sites();
    all_once_sites();
    assert_eq!(mem.len(), 1024, "once sites that fired, of 1024");
}

/// `sample = n` with `n = 0` computed at run time passes nothing, like
/// `first = 0`; a literal 0 is a compile error (tests/ui/log_sample_zero.rs).
#[test]
fn sample_zero_at_run_time_passes_nothing() {
    let (_s, mem) = capture();
    let n = std::hint::black_box(0u32);
    for _ in 0..10 {
        info!(sample = n, "sampled");
        info!(first = n, "first");
    }
    assert_eq!(mem.len(), 0, "{:?}", mem.messages());
}
