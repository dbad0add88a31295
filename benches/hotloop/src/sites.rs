//! The measured loops, one `#[inline(never)]` function per site, each
//! `for i in 0..n { let x = black_box(i); <site> }`. Their names start with
//! `hot_`: callgrind collects only inside them (`--toggle-collect`).

use std::hint::black_box;

use crate::workload::{task, to_json};

/// Defines `pub fn $name(n: u64)` looping over one site; `$x` is the
/// black-boxed iteration number and `$n` the bound, for sites that use them.
macro_rules! hot {
    ($name:ident, |$x:ident, $n:ident| $site:block) => {
        #[inline(never)]
        #[allow(unused_variables)]
        pub fn $name($n: u64) {
            for i in 0..$n {
                let $x = ::std::hint::black_box(i);
                $site
            }
        }
    };
}
/// For the peers' own files (`spdlog_peer.rs`).
pub(crate) use hot;

hot!(hot_bare, |x, n| {});

// Cheap argument: an integer formatted into the message.
hot!(hot_elide_debug, |x, n| { elide::debug!("iteration {}", x) });
hot!(hot_log_debug, |x, n| { log::debug!("iteration {}", x) });
hot!(hot_tracing_debug, |x, n| {
    tracing::debug!("iteration {}", x)
});

// No argument: the message is a literal (a `&'static str` on every side).
hot!(hot_elide_debug_text, |x, n| { elide::debug!("iteration") });
hot!(hot_log_debug_text, |x, n| { log::debug!("iteration") });
hot!(hot_tracing_debug_text, |x, n| {
    tracing::debug!("iteration")
});

hot!(hot_elide_info, |x, n| { elide::info!("iteration {}", x) });
hot!(hot_log_info, |x, n| { log::info!("iteration {}", x) });
hot!(hot_tracing_info, |x, n| {
    tracing::info!("iteration {}", x)
});

// A target known only at run time: elide's run-time emit API beside log's
// macro with a computed target (both compare strings per hit).
static RUNTIME_TARGET: &str = "elide_benches::runtime";
hot!(hot_elide_emit_debug, |x, n| {
    elide::emit(
        black_box(RUNTIME_TARGET),
        elide::Level::Debug,
        &[],
        format_args!("iteration {}", x),
    )
});
hot!(hot_elide_runtime_target_debug, |x, n| {
    elide::debug!(target: black_box(RUNTIME_TARGET), "iteration {}", x)
});
hot!(hot_log_runtime_target_debug, |x, n| {
    log::debug!(target: black_box(RUNTIME_TARGET), "iteration {}", x)
});

// Expensive argument, lazy: evaluated only if the site emits.
hot!(hot_elide_lazy, |x, n| {
    elide::debug!("task {}", to_json(&task(x)))
});
hot!(hot_log_lazy, |x, n| {
    log::debug!("task {}", to_json(&task(x)))
});
hot!(hot_tracing_lazy, |x, n| {
    tracing::debug!("task {}", to_json(&task(x)))
});

// Expensive argument, guarded by an explicit enabled check.
hot!(hot_elide_guarded, |x, n| {
    if elide::enabled!(elide::Level::Debug) {
        elide::debug!("task {}", to_json(&task(x)))
    }
});
hot!(hot_log_guarded, |x, n| {
    if log::log_enabled!(log::Level::Debug) {
        log::debug!("task {}", to_json(&task(x)))
    }
});
hot!(hot_tracing_guarded, |x, n| {
    if tracing::enabled!(tracing::Level::DEBUG) {
        tracing::debug!("task {}", to_json(&task(x)))
    }
});

// Expensive argument, eager: built before the site, whatever the level.
hot!(hot_elide_eager, |x, n| {
    let s = to_json(&task(x));
    elide::debug!("task {}", s)
});
hot!(hot_log_eager, |x, n| {
    let s = to_json(&task(x));
    log::debug!("task {}", s)
});
hot!(hot_tracing_eager, |x, n| {
    let s = to_json(&task(x));
    tracing::debug!("task {}", s)
});

// Spans: made and entered for the iteration (the level decides).
hot!(hot_elide_span, |x, n| {
    let _s = elide::debug_span!("iteration", x).entered();
});
hot!(hot_tracing_span, |x, n| {
    let _s = tracing::debug_span!("iteration", x).entered();
});

// Debug checks.
hot!(hot_elide_check, |x, n| { elide::check!(x < n) });
hot!(hot_elide_check_eq, |x, n| { elide::check_eq!(x.min(n), x) });

// Counters.
hot!(hot_elide_counter, |x, n| { elide::counter!("bench.hits") });
hot!(hot_metrics_counter, |x, n| {
    metrics::counter!("bench.hits").increment(1)
});

// Sampling (the level is enabled; the filter decides).
hot!(hot_elide_sample, |x, n| {
    elide::info!(sample = 100, "iteration {}", x)
});
hot!(hot_elide_first, |x, n| {
    elide::info!(first = 1, "iteration {}", x)
});
hot!(hot_elide_every, |x, n| {
    elide::info!(every = std::time::Duration::from_secs(1), "iteration {}", x)
});

// Telemetry.
hot!(hot_elide_telemetry, |x, n| {
    elide::telemetry!("task.start", uid = x)
});
