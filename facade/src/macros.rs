//! The call-site macros, re-exported from `elide-macros` with their user docs.

/// Logs at [`Level::Error`](crate::Level::Error).
///
/// Same syntax as [`info!`]: `error!([target: "ns",] [fields,] ["format", args..])`.
///
/// ```
/// let code = 7;
/// elide::error!(code, path = "/tmp/x", "cannot open {}", "/tmp/x");
/// ```
pub use elide_macros::error;

/// Logs at [`Level::Warn`](crate::Level::Warn). Syntax as [`info!`].
///
/// ```
/// elide::warn!(retries = 3, "slow peer");
/// ```
pub use elide_macros::warn;

/// Logs at [`Level::Info`](crate::Level::Info).
///
/// `info!([target: "ns",] [fields,] [sampling,] ["format", args..])`
///
/// - `target: "ns"` sets the namespace the level is looked up under
///   (default: `module_path!()`).
/// - Fields: `key = expr` (typed: integers, floats, bool, char, strings, or
///   anything implementing [`ToValue`](crate::ToValue)), `key = %expr`
///   (`Display`), `key = ?expr` (`Debug`), and the shorthands `key`, `%key`,
///   `?key`. Dotted keys (`task.uid = ..`) are allowed.
/// - Sampling, one per site: `sample = N` (the first of every `N` hits, per
///   thread), `first = N`, `once`, `every = <Duration>`.
/// - The message: a `format_args!` string with positional, named and inline
///   `{x}` arguments.
///
/// Nothing inside the parentheses is evaluated unless the site emits.
///
/// ```
/// use std::time::Duration;
/// let (uid, state) = ("task.01", "RUNNING");
/// elide::info!(uid, %state, "task {uid} is {}", state);
/// elide::info!(target: "radical.asyncflow", n = 3, "explicit namespace");
/// elide::info!(sample = 1000, "progress");
/// elide::info!(every = Duration::from_secs(5), "heartbeat");
/// elide::info!(once, "printed once per process");
/// ```
pub use elide_macros::info;

/// Logs at [`Level::Debug`](crate::Level::Debug). Syntax as [`info!`].
///
/// ```
/// #[derive(Debug)] enum State { Running }
/// elide::debug!(state = ?State::Running, "state changed");
/// ```
pub use elide_macros::debug;

/// Logs at [`Level::Trace`](crate::Level::Trace). Syntax as [`info!`].
///
/// ```
/// elide::trace!("entering {}", "scheduler");
/// ```
pub use elide_macros::trace;

/// Logs at a level given as the first argument: a fixed level
/// (`Level::Warn`, gated statically like the level macros) or any
/// expression of type [`Level`](crate::Level) (compared at run time).
///
/// ```
/// use elide::Level;
/// elide::log!(Level::Warn, "fixed");
/// let lvl = if std::env::args().count() > 5 { Level::Info } else { Level::Debug };
/// elide::log!(target: "app::io", lvl, bytes = 42, "dynamic");
/// ```
pub use elide_macros::log;

/// Whether a log site at this level (and target) would emit: one load once
/// the answer is cached. Use it to guard work that is not a macro argument.
///
/// ```
/// use elide::Level;
/// if elide::enabled!(Level::Debug) {
///     let report = String::from("built only when debug is on");
///     elide::debug!("{report}");
/// }
/// assert!(!elide::enabled!(target: "quiet::module", Level::Trace));
/// ```
pub use elide_macros::enabled;

/// A debug check: evaluates the condition only when debug mode is on for
/// the site's namespace (see [`set_debug`](crate::set_debug) and the
/// `DEBUG` environment key). A failed check logs at error level, then
/// panics (or only logs, see [`set_check_failure`](crate::set_check_failure)).
/// Compiled out by the `checks_off` / `release_checks_off` features.
///
/// ```
/// elide::set_debug(true);
/// let deps: Vec<u32> = vec![];
/// elide::check!(deps.is_empty(), "task scheduled with {} open deps", deps.len());
/// ```
pub use elide_macros::check;

/// A debug check that two values are equal (`PartialEq` + `Debug`); both
/// values are reported on failure. Gated like [`check!`].
///
/// ```
/// elide::check_eq!(2 + 2, 4, "arithmetic");
/// ```
pub use elide_macros::check_eq;

/// A debug check that two values differ. Gated like [`check!`].
///
/// ```
/// elide::check_ne!("a", "b");
/// ```
pub use elide_macros::check_ne;

/// A telemetry event: `telemetry!([target: "ns",] "event", key = value, ..)`.
/// Emitted only when telemetry is on for the namespace and a telemetry sink
/// is installed; the fields are built only then. Compiled out by the
/// `telemetry_off` / `release_telemetry_off` features.
///
/// ```
/// elide::telemetry!("task.start", uid = "task.01", state = "RUNNING");
/// ```
pub use elide_macros::telemetry;

/// An always-on counter: `counter!("name")` adds 1, `counter!("name", n)`
/// adds `n` (a `u64`). A hit is a relaxed add on a per-thread shard of the
/// site's own static: no clock read, no lock, no registration. Read totals
/// with [`counters`](crate::counters). Compiled out by the telemetry gate.
///
/// ```
/// elide::counter!("bytes.read", 512);
/// assert!(elide::counters()["bytes.read"] >= 512);
/// ```
pub use elide_macros::counter;
