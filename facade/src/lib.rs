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
//! A program calls [`init`] first thing in `main` and keeps the guard: it
//! reads the environment once, installs the sinks it asks for (stderr by
//! default) and flushes every sink when it is dropped.
//!
//! ```
//! use elide::{check, counter, debug, info, warn, LevelFilter};
//!
//! fn process(job: u32) -> u32 {
//!     debug!(job, "processing job {job}");  // MYAPP_LOG_LVL=debug shows it
//!     check!(job < 1000, "job {job} out of range"); // runs with MYAPP_DEBUG=1
//!     counter!("jobs.done");                 // no run-time switch, a few instructions
//!     job * 2
//! }
//!
//! fn main() {
//!     let _guard = elide::init();
//!     // The built-in default is Error; the environment still overrides this.
//!     elide::set_default_level(LevelFilter::Info);
//!
//!     info!(version = "1.0", "starting");
//!     let total: u32 = (0..3).map(process).sum();
//!     warn!(total, "finished {} jobs", elide::counter_value("jobs.done"));
//! #   assert_eq!(total, 6);
//! }
//! ```
//!
//! The variables are named after the site's namespace (its module path by
//! default): crate `myapp` reads `MYAPP_LOG_LVL`, `MYAPP_DEBUG`,
//! `MYAPP_PROFILE`; see [`guide::configuration`]. Tests capture what the
//! code under them logs with [`testing::capture`] (see [`guide::testing`]).
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
//! - On by default: `async` (the asynchronous sinks and their writer
//!   threads; `LOG_MODE=async`/`durable`), `prof` (the
//!   `.prof` telemetry file, `telemetry::enable`, `PROFILE`'s start-up
//!   file), `file` (the file sinks and the file targets of `LOG_TGT`),
//!   `json` (the JSON line layout, `LOG_FMT=json`) and `rust-log`
//!   (`RUST_LOG` directives). A program that logs only to the console sets
//!   `default-features = false` and links none of them; an environment
//!   that asks for one gets one warning and a fallback (see
//!   [`guide::features`]).
//! - Off by default: `log` and `tracing` (the bridges), `otlp`
//!   (OpenTelemetry export), `otlp-tls` (`otlp` to `https://` endpoints).
//! - The static gate: `max_level_*`, `release_max_level_*`, `checks_off`,
//!   `telemetry_off` and their `release_` twins, for the final binary only.
//!
//! ```toml
//! [dependencies]
//! elide = { path = "../elide/facade", default-features = false }   # console only
//! ```
//!
//! ## Guide
//!
//! The whole contract, one chapter each, with runnable examples:
//! [call sites](guide::call_sites) (every macro and its syntax),
//! [configuration](guide::configuration) (the `RADICAL_*` environment
//! cascade, keys and values, `init_ns`, precedence, bad values),
//! [cargo features](guide::features) (the static gate),
//! [sinks](guide::sinks) (where records go and what each guarantees),
//! [telemetry](guide::telemetry) (events, counters, timed scopes, spans, `.prof`
//! files, OpenTelemetry) and
//! [testing](guide::testing) (capturing what a test logs, in parallel
//! tests, with [`testing::capture`]).
//!
//! Items that need a cargo feature say so on their page (built with
//! `--cfg docsrs` on a nightly toolchain, as docs.rs does).

// Feature badges on feature-gated items, where the docs are built with
// `--cfg docsrs` (docs.rs, or `cargo +nightly doc` with that flag).
#![cfg_attr(docsrs, feature(doc_cfg))]

// Layers, lowest first; each calls only downward (checked in CI by
// `module-cycles`), and each folder's `mod.rs` says what it owns:
// `record` (the data a record is made of), `contain`, `site` (call sites,
// their registry, the static gate, namespaces) -> `os` (process, clock,
// host), `stats` -> `format` -> `sink` -> `config` (with `env`) ->
// `dispatch` -> `runtime` (with each site's run-time path) -> `check`,
// `bridge`, `control`, `telemetry`, `span`, `testing` -> `__private` (what
// the macros call). One call goes up, wired here at the root: at start-up,
// `runtime` asks `bridge` for the application's own logger
// (`host_logger_sink`).
#[cfg(any(feature = "log", feature = "tracing"))]
#[cfg_attr(docsrs, doc(cfg(any(feature = "log", feature = "tracing"))))]
pub mod bridge;
mod check;
mod config;
mod contain;
mod control;
mod dispatch;
pub mod field;
pub mod format;
pub mod guide;
mod macros;
mod os;
// Without `async`, the accessors only the asynchronous writers read are
// unused; the default build still reports any other dead code here.
#[doc(hidden)]
pub mod __private;
#[cfg_attr(not(feature = "async"), allow(dead_code))]
mod record;
mod runtime;
pub mod sink;
mod site;
pub mod span;
mod stats;
pub mod telemetry;
mod templates;
pub mod testing;
/// The procedural macros behind the front doors in `macros`. Not public API.
#[doc(hidden)]
pub use elide_macros as __macros;

pub use check::{check_failure, set_check_failure, CheckFailure};
pub use config::env::Origin;
#[allow(deprecated)]
pub use control::debug_mode_for;
pub use control::{
    add_sink, debug_for, flush, init, init_ns, level_for, max_level, profile_dir, reload_from_env,
    set_debug, set_debug_for, set_default_level, set_level, set_level_for, set_max_level,
    set_sinks, set_telemetry, set_telemetry_for, sinks, telemetry_for,
};
pub use record::level::{Level, LevelFilter, ParseLevelError};
pub use record::message::Message;
pub use record::metadata::{Kind, Metadata};
pub use record::value::{Field, ToValue, Value, Visit};
pub use record::{thread_number, Record, ThreadInfo};
pub use runtime::describe::{describe, describe_for, Description, Entry};
pub use runtime::runtime_site::{emit, enabled_for};
pub use runtime::{install_panic_hook, Guard};
pub use sink::Sink;
pub use site::counter::{counter_value, counters};
pub use site::namespace::env_prefix;
pub use site::static_gate::STATIC_MAX_LEVEL;
pub use span::{Instrument, Span};
pub use stats::{report_write_error, stats, Stats};

pub use macros::{check, check_eq, check_ne, checked, instrument, timed};

/// The application's own `log` logger or `tracing` dispatcher as a sink,
/// with its level, for the runtime's start-up before the application set
/// elide up (see `bridge::host_logger`). None without the bridges.
pub(crate) fn host_logger_sink() -> Option<(std::sync::Arc<dyn Sink>, LevelFilter)> {
    #[cfg(any(feature = "log", feature = "tracing"))]
    return bridge::host_logger::sink();
    #[cfg(not(any(feature = "log", feature = "tracing")))]
    None
}
