//! `counter!`: exact totals under contention, readable while threads
//! count, same-name sites summed.

use std::sync::atomic::{AtomicBool, Ordering};

use elide::counter;

/// Eight threads each own a shard (no locked instruction); a reader sums
/// the shards while they run and sees a total that only grows and never
/// exceeds what was counted; once joined, the total is exact.
#[test]
fn eight_threads_of_a_million_sum_exactly_and_are_readable_meanwhile() {
    const THREADS: u64 = 8;
    const HITS: u64 = 1_000_000;
    let before = elide::counter_value("counters.contended");
    let done = AtomicBool::new(false);
    let reads = std::thread::scope(|s| {
        let reader = s.spawn(|| {
            let mut seen = Vec::new();
            while !done.load(Ordering::Relaxed) {
                seen.push(elide::counter_value("counters.contended") - before);
                std::thread::yield_now();
            }
            seen
        });
        let writers: Vec<_> = (0..THREADS)
            .map(|_| {
                s.spawn(|| {
                    for _ in 0..HITS {
                        counter!("counters.contended");
                    }
                })
            })
            .collect();
        for w in writers {
            w.join().unwrap();
        }
        done.store(true, Ordering::Relaxed);
        reader.join().unwrap()
    });
    assert!(
        reads.windows(2).all(|w| w[0] <= w[1]),
        "a running total never goes back"
    );
    assert!(reads.iter().all(|&r| r <= THREADS * HITS));
    assert_eq!(
        elide::counter_value("counters.contended") - before,
        THREADS * HITS
    );
    assert_eq!(elide::counters()["counters.contended"], THREADS * HITS);
}

fn site_a() {
    counter!("counters.shared");
}

fn site_b(n: u64) {
    counter!("counters.shared", n);
}

#[test]
fn same_name_sites_are_summed() {
    std::thread::scope(|s| {
        s.spawn(|| (0..1000).for_each(|_| site_a()));
        s.spawn(|| (0..1000).for_each(|_| site_b(3)));
    });
    site_b(0);
    assert_eq!(elide::counter_value("counters.shared"), 4000);
    let snapshot = elide::counters();
    assert_eq!(snapshot["counters.shared"], 4000);
    // A site registers on its first hit: one never hit reads 0 (and may be
    // missing from the snapshot).
    assert_eq!(snapshot.get("counters.never").copied().unwrap_or(0), 0);
    assert_eq!(elide::counter_value("counters.never"), 0);
    assert_eq!(elide::counter_value("counters.no-such-name"), 0);
}

#[allow(dead_code)]
fn never_called() {
    counter!("counters.never");
}

#[test]
fn amount_expressions_are_evaluated_once_per_hit() {
    let mut calls = 0;
    let mut amount = || {
        calls += 1;
        5
    };
    for _ in 0..10 {
        counter!("counters.amount", amount());
    }
    assert_eq!(calls, 10);
    assert_eq!(elide::counter_value("counters.amount"), 50);
}

/// Two sites of one name whose sum passes `u64::MAX` wrap, as one site does,
/// instead of panicking in a debug build.
#[test]
fn same_name_totals_wrap_instead_of_overflowing() {
    elide::counter!("wrap.total", u64::MAX);
    elide::counter!("wrap.total", 3);
    assert_eq!(elide::counters()["wrap.total"], 2);
    assert_eq!(elide::counter_value("wrap.total"), 2);
}

/// Threads that exit give their slot back and keep their counts: many more
/// short-lived threads than slots, one after another, sum exactly.
#[test]
fn counts_of_exited_threads_are_kept_and_slots_reused() {
    let before = elide::counter_value("counters.short-lived");
    for _ in 0..200 {
        std::thread::spawn(|| (0..100).for_each(|_| counter!("counters.short-lived")))
            .join()
            .unwrap();
    }
    assert_eq!(
        elide::counter_value("counters.short-lived") - before,
        20_000
    );
}
