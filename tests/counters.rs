//! `counter!`: exact totals under contention, same-name sites summed.

use elide::counter;

#[test]
fn eight_threads_of_a_million_sum_exactly() {
    const THREADS: u64 = 8;
    const HITS: u64 = 1_000_000;
    let before = elide::counter_value("counters.contended");
    std::thread::scope(|s| {
        for _ in 0..THREADS {
            s.spawn(|| {
                for _ in 0..HITS {
                    counter!("counters.contended");
                }
            });
        }
    });
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
    // Every site is listed from the start, even one never hit.
    assert_eq!(snapshot["counters.never"], 0);
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
