//! # elide: instrumentation whose disabled call sites cost nothing
//!
//! Logging, telemetry events, counters and debug checks for code that runs
//! millions of iterations a second. Every call site is expanded by a
//! procedural macro into three gates:
//!
//! 1. **Static gate**: cargo features (`max_level_*`, `release_max_level_*`,
//!    `checks_off`, `telemetry_off`, ...) and the per-crate build-time filters
//!    (`ELIDE_STATIC_LEVEL="info,my_app::db=trace"`, see
//!    [`guide::features`]) remove a site entirely. No code is generated at
//!    any opt-level, but the arguments still type-check.
//! 2. **Runtime gate**: each site owns a `static` caching its threshold for
//!    the current configuration. A disabled site costs one relaxed load, a
//!    compare and a branch; its arguments are never evaluated.
//! 3. **Cold path**: building the record, reading the clock and dispatching
//!    to sinks happen in a `#[cold]`, non-inlined function.
//!
//! The effective threshold of a site is the lower of the level configured for
//! its namespace and the most verbose level any installed sink accepts, so a
//! record no sink wants is never built.
//!
//! ```
//! use std::sync::Arc;
//! use elide::{debug, info, check, counter, LevelFilter};
//! use elide::sink::MemorySink;
//!
//! let mem = Arc::new(MemorySink::new());
//! elide::set_sinks([mem.clone() as Arc<dyn elide::Sink>]);
//! elide::set_level(LevelFilter::Info);
//!
//! let uid = "task.000001";
//! info!(uid, state = "RUNNING", "task {uid} started");
//! debug!("not built: {}", expensive());      // Info < Debug: never evaluated
//! check!(uid.starts_with("task."));            // debug mode is off: skipped
//! counter!("tasks.started");                    // no run-time switch, a few instructions
//!
//! assert_eq!(mem.messages(), ["task task.000001 started"]);
//! assert_eq!(elide::counters()["tasks.started"], 1);
//! # fn expensive() -> String { unreachable!() }
//! ```
//!
//! Macro arguments: an optional `target: "ns",`, then fields (`key = expr`
//! typed, `key = %expr` through `Display`, `key = ?expr` through `Debug`,
//! `key` for `key = key`), then a `format_args!` format string and its
//! arguments. Log sites also take one sampling option: `sample = N`,
//! `first = N`, `once` or `every = <Duration>`. Arguments are evaluated in a
//! closure on the cold path, so `?` and `return` inside them do not reach the
//! enclosing function.
//!
//! ## Cargo features
//!
//! - On by default: `async` (the asynchronous sinks, their writer threads
//!   and `crossbeam-channel`; `LOG_MODE=async`/`durable`), `prof` (the
//!   `.prof` telemetry file, `telemetry::enable`, `PROFILE`'s start-up
//!   file), `file` (the file sinks and the file targets of `LOG_TGT`),
//!   `json` (the JSON line layout, `LOG_FMT=json`) and `rust-log`
//!   (`RUST_LOG` directives). A program that logs only to the console sets
//!   `default-features = false` and links none of them; an environment
//!   that asks for one gets one warning and a fallback (see
//!   [`guide::features`]).
//! - Off by default: `log` and `tracing` (the bridges), `otlp`
//!   (OpenTelemetry export).
//! - The static gate: `max_level_*`, `release_max_level_*`, `checks_off`,
//!   `telemetry_off` and their `release_` twins, for the final binary only.
//!
//! ```toml
//! [dependencies]
//! elide = { version = "0.1", default-features = false }   # console only
//! ```
//!
//! ## Guide
//!
//! The whole contract, one chapter each, with runnable examples:
//! [call sites](guide::call_sites) (every macro and its syntax),
//! [configuration](guide::configuration) (the `RADICAL_*` environment
//! cascade, keys and values, `init_ns`, precedence, bad values),
//! [cargo features](guide::features) (the static gate),
//! [sinks](guide::sinks) (where records go and what each guarantees) and
//! [testing](guide::testing) (capturing what a test logs, in parallel
//! tests, with [`testing::capture`]).

// Layers, lowest first; each calls only downward (checked in CI by
// `module-cycles`): data (level, metadata, value, record, registry,
// namespace, stats, counter, scope_names) -> process, host -> sample, callsite ->
// format -> sink ->
// env -> config -> dispatch -> interest -> runtime -> control, describe,
// check, checked, telemetry, testing -> __private (what the macros call).
#[cfg(any(feature = "log", feature = "tracing"))]
pub mod bridge;
mod callsite;
mod check;
mod checked;
#[cfg(feature = "async")]
mod clock;
mod config;
mod contain;
mod control;
mod counter;
mod decimal;
mod describe;
mod dispatch;
mod env;
pub mod format;
pub mod guide;
#[cfg(any(feature = "prof", feature = "otlp"))]
mod host;
mod interest;
mod level;
mod macros;
mod metadata;
mod namespace;
mod process;
mod raw;
// Without `async`, the accessors only the asynchronous writers read are
// unused; the default build still reports any other dead code here.
#[cfg_attr(not(feature = "async"), allow(dead_code))]
mod record;
mod registry;
mod runtime;
mod runtime_site;
mod sample;
mod scope_names;
pub mod sink;
mod static_gate;
mod stats;
pub mod telemetry;
mod templates;
pub mod testing;
mod value;

#[doc(hidden)]
pub mod __private;
/// The procedural macros behind the front doors in `macros`. Not public API.
#[doc(hidden)]
pub use elide_macros as __macros;

pub use callsite::registered_count;
pub use check::{check_failure, set_check_failure, CheckFailure};
pub use control::{
    add_sink, debug_mode, debug_mode_for, flush, init, init_ns, level_for, max_level, profile_dir,
    reload_from_env, set_debug, set_debug_for, set_default_level, set_level, set_level_for,
    set_max_level, set_sinks, set_telemetry, set_telemetry_for, sinks, telemetry_for,
};
pub use counter::{counter_value, counters};
pub use describe::{describe, describe_for, Description, Entry};
pub use env::Origin;
pub use level::{Level, LevelFilter, ParseLevelError};
pub use metadata::{Kind, Metadata};
pub use namespace::env_prefix;
pub use record::{thread_number, Record, ThreadInfo};
pub use runtime::{install_panic_hook, Guard};
pub use runtime_site::{emit, enabled_for, MAX_TARGETS, OVERFLOW_TARGET};
pub use sink::Sink;
pub use static_gate::STATIC_MAX_LEVEL;
pub use stats::{report_write_error, stats, Stats};
pub use value::{Field, ToValue, Value, Visit};

pub use macros::{check, check_eq, check_ne, checked, timed};
