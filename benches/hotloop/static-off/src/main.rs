//! Statically-off sites: the same loops as the main benchmark, built with
//! `max_level_info` (elide, log, tracing), `checks_off` and `telemetry_off`.
//! Everything is switched on at run time, so only the static gate can remove
//! a site. Speaks the harness's child protocol (`--list`, `--child ..`).

#[path = "../../src/child.rs"]
mod child;
#[allow(dead_code)]
#[path = "../../src/consumers.rs"]
mod consumers;
#[path = "../../src/workload.rs"]
mod workload;

use std::hint::black_box;
use std::sync::Arc;

use child::{no_reset, Variant};
use workload::{task, to_json};

macro_rules! hot {
    ($name:ident, |$x:ident| $site:block) => {
        #[inline(never)]
        #[allow(unused_variables)]
        fn $name(n: u64) {
            for i in 0..n {
                let $x = black_box(i);
                $site
            }
        }
    };
}

hot!(hot_bare, |x| {});
hot!(hot_elide_debug, |x| { elide::debug!("iteration {}", x) });
hot!(hot_log_debug, |x| { log::debug!("iteration {}", x) });
hot!(hot_tracing_debug, |x| {
    tracing::debug!("iteration {}", x)
});
hot!(hot_elide_lazy, |x| {
    elide::debug!("task {}", to_json(&task(x)))
});
hot!(hot_log_lazy, |x| {
    log::debug!("task {}", to_json(&task(x)))
});
hot!(hot_tracing_lazy, |x| {
    tracing::debug!("task {}", to_json(&task(x)))
});
hot!(hot_elide_span, |x| {
    let _s = elide::debug_span!("iteration", x).entered();
});
hot!(hot_tracing_span, |x| {
    let _s = tracing::debug_span!("iteration", x).entered();
});
hot!(hot_elide_check, |x| { elide::check!(x < u64::MAX) });
hot!(hot_elide_telemetry, |x| {
    elide::telemetry!("task.start", uid = x)
});

/// Turns everything on at run time (storing every level on the way, so no
/// run-time switch is a never-written static): only the static gate is left.
fn setup() {
    use elide::LevelFilter as L;
    elide::set_sinks([
        Arc::new(elide::sink::NullSink::new()) as Arc<dyn elide::Sink>,
        Arc::new(consumers::NullTelemetrySink),
    ]);
    for l in [L::Off, L::Error, L::Warn, L::Info, L::Debug, L::Trace] {
        elide::set_level(l);
    }
    for on in [false, true] {
        elide::set_debug(on);
        elide::set_telemetry(on);
    }
    log::set_logger(&consumers::NoopLogger).expect("first logger");
    use log::LevelFilter as G;
    for l in [G::Off, G::Error, G::Warn, G::Info, G::Debug, G::Trace] {
        log::set_max_level(l);
    }
    tracing::subscriber::set_global_default(consumers::NoopSubscriber).expect("first subscriber");
}

macro_rules! v {
    ($name:literal, $row:expr, $lib:literal, $run:expr) => {
        Variant {
            name: $name,
            row: $row,
            lib: $lib,
            setup,
            run: $run,
            hot: stringify!($run),
            reset: no_reset,
        }
    };
}

const CHEAP: &str = "statically off, cheap arg";
const LAZY: &str = "statically off, expensive arg";
const SPAN: &str = "span statically off, entered";

static VARIANTS: &[Variant] = &[
    v!("bare", "bare loop", "-", hot_bare),
    v!("e-static-cheap", CHEAP, "elide", hot_elide_debug),
    v!("l-static-cheap", CHEAP, "log", hot_log_debug),
    v!("t-static-cheap", CHEAP, "tracing", hot_tracing_debug),
    v!("e-static-lazy", LAZY, "elide", hot_elide_lazy),
    v!("l-static-lazy", LAZY, "log", hot_log_lazy),
    v!("t-static-lazy", LAZY, "tracing", hot_tracing_lazy),
    v!("e-static-span", SPAN, "elide", hot_elide_span),
    v!("t-static-span", SPAN, "tracing", hot_tracing_span),
    v!(
        "e-static-check",
        "check! statically off",
        "elide",
        hot_elide_check
    ),
    v!(
        "e-static-telemetry",
        "telemetry! statically off",
        "elide",
        hot_elide_telemetry
    ),
];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let suffix = if cfg!(debug_assertions) {
        " (opt-level 0)"
    } else {
        " (opt-level 3, fat LTO)"
    };
    if !child::serve(&args, VARIANTS, suffix) {
        eprintln!("run by the elide-benches harness: `cargo run --release -p elide-benches`");
        std::process::exit(2);
    }
}
