//! The protocol between the harness and a benchmark binary (this one or the
//! statically-off builds): every measurement runs in a child process of its
//! own, so each variant gets a fresh global configuration (a `tracing`
//! global subscriber, for one, can be set only once per process).
//!
//! - `--list`: one line per variant, `name<TAB>row<TAB>lib`;
//! - `--child time NAME ROUND_MS ROUNDS`: per round, ns per iteration of the
//!   variant and of the bare loop run right after it (interleaved, so a
//!   change in machine load between rounds hits both);
//! - `--child count NAME N`: runs the loop N times (under callgrind).

use std::time::{Duration, Instant};

/// One measured loop and the configuration it runs under.
pub struct Variant {
    /// Unique name, used on the child's command line.
    pub name: &'static str,
    /// The table row it belongs to; variants of one row are compared.
    pub row: &'static str,
    /// `elide`, `log`, `tracing`, `spdlog-rs`, `metrics`, or `-` for the bare loop.
    pub lib: &'static str,
    /// Configures the process (sinks, levels, loggers, subscribers).
    pub setup: fn(),
    /// The `#[inline(never)]` loop: `for i in 0..n { let x = black_box(i); <site> }`.
    pub run: fn(u64),
    /// The loop function's name, which callgrind collects inside (exactly
    /// that name: a site's cold closure, `<name>::{{closure}}`, is a callee
    /// and is counted, not a toggle of its own).
    pub hot: &'static str,
    /// Called between rounds, outside the timed region (drains memory sinks).
    pub reset: fn(),
}

/// Does nothing: the `reset` of variants that keep no state.
pub fn no_reset() {}

/// Handles `--list` and `--child ..`; returns `false` if `args` is neither.
pub fn serve(args: &[String], variants: &[Variant], row_suffix: &str) -> bool {
    match args.first().map(String::as_str) {
        Some("--list") => {
            for v in variants {
                println!("{}\t{}{}\t{}\t{}", v.name, v.row, row_suffix, v.lib, v.hot);
            }
            true
        }
        Some("--child") => {
            let find = |name: &str| {
                variants
                    .iter()
                    .find(|v| v.name == name)
                    .unwrap_or_else(|| fail(&format!("no variant named {name:?}")))
            };
            let num = |i: usize| -> u64 {
                args.get(i)
                    .and_then(|s| s.parse().ok())
                    .unwrap_or_else(|| fail(&format!("argument {i} must be a number: {args:?}")))
            };
            match args.get(1).map(String::as_str) {
                Some("time") => {
                    let v = find(args.get(2).map_or("", String::as_str));
                    let bare = find("bare");
                    (v.setup)();
                    let round = Duration::from_millis(num(3));
                    let (n, nb) = (calibrate(v, round), calibrate(bare, round));
                    for _ in 0..num(4) {
                        println!("{} {}", timed(v, n), timed(bare, nb));
                    }
                }
                Some("count") => {
                    let v = find(args.get(2).map_or("", String::as_str));
                    (v.setup)();
                    (v.run)(num(3));
                }
                _ => fail("expected `--child time NAME ROUND_MS ROUNDS` or `--child count NAME N`"),
            }
            true
        }
        _ => false,
    }
}

fn fail(msg: &str) -> ! {
    eprintln!("benchmark child: {msg}");
    std::process::exit(2)
}

/// ns per iteration of one round of `n` iterations.
fn timed(v: &Variant, n: u64) -> f64 {
    (v.reset)();
    let t = Instant::now();
    (v.run)(n);
    t.elapsed().as_nanos() as f64 / n as f64
}

/// An iteration count for which one round takes about `round`.
fn calibrate(v: &Variant, round: Duration) -> u64 {
    // Doubling also warms caches, the branch predictor and lazy state
    // (first hits resolve sites on their cold path).
    let mut n = 64u64;
    loop {
        let took = timed(v, n) * n as f64;
        if took >= round.as_nanos() as f64 / 4.0 || n >= 1 << 40 {
            return ((n as f64 * round.as_nanos() as f64 / took.max(1.0)) as u64).max(1);
        }
        n *= 2;
    }
}
