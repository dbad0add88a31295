//! The call-site macros with their user docs: `macro_rules!` front doors
//! that hand the procedural macros in `elide-macros` the path of this crate
//! (`crate = $crate`), so a site works however the calling crate imported
//! elide (renamed, re-exported), at no cost at run time. The attributes,
//! which cannot be `macro_rules!`, are re-exported as they are, and so are
//! the check macros, which read their condition's text from the call
//! (`Span::call_site`), which a front door would hide; these find a renamed
//! elide in the calling crate's manifest.

/// Logs at [`Level::Error`](crate::Level::Error).
///
/// Same syntax as [`info!`](crate::info!): `error!([target: "ns",] [fields,] ["format", args..])`.
///
/// ```
/// let code = 7;
/// elide::error!(code, path = "/tmp/x", "cannot open {}", "/tmp/x");
/// ```
#[macro_export]
macro_rules! error {
    ($($arg:tt)*) => { $crate::__macros::error!(crate = $crate, $($arg)*) };
}

/// Logs at [`Level::Warn`](crate::Level::Warn). Syntax as [`info!`](crate::info!).
///
/// ```
/// elide::warn!(retries = 3, "slow peer");
/// ```
#[macro_export]
macro_rules! warn {
    ($($arg:tt)*) => { $crate::__macros::warn!(crate = $crate, $($arg)*) };
}

/// Logs at [`Level::Info`](crate::Level::Info).
///
/// `info!([target: "ns",] [fields,] [sampling,] ["format", args..])`
///
/// - `target: "ns"` sets the namespace the level is looked up under
///   (default: `module_path!()`).
/// - Fields: `key = expr` (typed: integers, floats, bool, char, strings, or
///   anything implementing [`ToValue`](crate::ToValue)), `key = %expr`
///   (`Display`), `key = ?expr` (`Debug`), and the shorthands `key`, `%key`,
///   `?key`, also dotted (`?pos.x`, `%self.addr`, named `pos.x`,
///   `self.addr`). Dotted keys (`task.uid = ..`) and string-literal keys
///   (`"content-type" = ct`) are allowed. A plain `Option` value records
///   what is inside a `Some` and leaves the field out when it is `None`.
/// - `log`'s forms work too: key-values ended by `;`
///   (`info!(a = 1, b = "x"; "msg {}", n)`) and its capture modifiers
///   `key:? = v`, `key:% = v`, `key:err = e`.
/// - `target:` is a string literal, a `const` (an upper-case path such as
///   `TARGET`), `module_path!()`, or any other `&str` expression, which is
///   looked up at run time: such a site costs one lookup in a per-target
///   table (see [`emit`](crate::emit)) instead of one load, and its
///   target need not be `'static`.
/// - `crate = path` first names the `elide` crate when it is renamed or
///   re-exported (see [the call-site guide](crate::guide::call_sites)).
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
/// elide::info!(target: "t", cat_1 = "chashu", cat_count = 2; "hello {}", "cats");
/// let (port, peer): (Option<u16>, Option<&str>) = (Some(80), None);
/// elide::info!(port, peer, "port is recorded, peer is left out");
/// let target = String::from("runtime.target");
/// elide::info!(target: &target, "a target known only at run time");
/// ```
#[macro_export]
macro_rules! info {
    ($($arg:tt)*) => { $crate::__macros::info!(crate = $crate, $($arg)*) };
}

/// Logs at [`Level::Debug`](crate::Level::Debug). Syntax as [`info!`](crate::info!).
///
/// ```
/// #[derive(Debug)] enum State { Running }
/// elide::debug!(state = ?State::Running, "state changed");
/// ```
#[macro_export]
macro_rules! debug {
    ($($arg:tt)*) => { $crate::__macros::debug!(crate = $crate, $($arg)*) };
}

/// Logs at [`Level::Trace`](crate::Level::Trace). Syntax as [`info!`](crate::info!).
///
/// ```
/// elide::trace!("entering {}", "scheduler");
/// ```
#[macro_export]
macro_rules! trace {
    ($($arg:tt)*) => { $crate::__macros::trace!(crate = $crate, $($arg)*) };
}

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
#[macro_export]
macro_rules! log {
    ($($arg:tt)*) => { $crate::__macros::log!(crate = $crate, $($arg)*) };
}

/// Compatibility alias, `tracing`'s name for [`log!`](crate::log!): `event!(Level::INFO, key = v, "msg")`.
/// Same syntax and cost as [`log!`](crate::log!); tracing's `Level::INFO` constants are
/// on [`Level`](crate::Level) too.
///
/// ```
/// use elide::Level;
/// elide::event!(Level::DEBUG, answer = 42, "computed");
/// elide::event!(target: "app", Level::Warn, "log's spelling works too");
/// ```
#[macro_export]
macro_rules! event {
    ($($arg:tt)*) => { $crate::__macros::event!(crate = $crate, $($arg)*) };
}

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
#[macro_export]
macro_rules! enabled {
    ($($arg:tt)*) => { $crate::__macros::enabled!(crate = $crate, $($arg)*) };
}

/// Compatibility alias, `log`'s name for [`enabled!`](crate::enabled!): `log_enabled!([target: "ns",] level)`.
///
/// ```
/// use elide::Level;
/// if elide::log_enabled!(Level::Debug) {
///     elide::debug!("expensive report");
/// }
/// ```
#[macro_export]
macro_rules! log_enabled {
    ($($arg:tt)*) => { $crate::__macros::log_enabled!(crate = $crate, $($arg)*) };
}

/// Compatibility alias, `tracing`'s name for [`enabled!`](crate::enabled!):
/// `event_enabled!([target: "ns",] level [, field names])`. The answer
/// does not depend on the field names, which are accepted for tracing's
/// syntax.
///
/// ```
/// use elide::Level;
/// let _ = elide::event_enabled!(Level::TRACE, uid);
/// ```
#[macro_export]
macro_rules! event_enabled {
    ($($arg:tt)*) => { $crate::__macros::event_enabled!(crate = $crate, $($arg)*) };
}

/// A debug check: `check!([target: "ns",] cond [, "format", args..])`.
///
/// Runs only when debug mode is on for the site's namespace (by default its
/// module; see [`set_debug`](crate::set_debug),
/// [`set_debug_for`](crate::set_debug_for) and the `DEBUG` environment key).
/// When it is off the site costs one relaxed load and a branch, and neither
/// the condition nor the message is evaluated; the message is built only when
/// the check fails. A failed check sends one record at error level to the
/// sinks, then panics at the site with `file:line`, the condition as written
/// and the message (or only logs, see
/// [`set_check_failure`](crate::set_check_failure)). Compiled out by the
/// `checks_off` / `release_checks_off` features (still type-checked).
///
/// The condition and message run in a closure on the cold path: `?` and
/// `return` inside them do not reach the enclosing function.
///
/// ```
/// elide::set_debug(true);
/// let deps: Vec<u32> = vec![];
/// elide::check!(deps.is_empty(), "task scheduled with {} open deps", deps.len());
///
/// let failed = std::panic::catch_unwind(|| elide::check!(deps.len() > 1, "need two"));
/// let msg = failed.unwrap_err().downcast::<String>().unwrap();
/// assert!(msg.ends_with("check failed: `deps.len() > 1`: need two"));
/// ```
pub use elide_macros::check;

/// A debug check that two values are equal (`PartialEq` + `Debug`):
/// `check_eq!(left, right [, "format", args..])`. Both values are reported
/// on failure (`left: .., right: ..`). Gated like [`check!`](crate::check!).
///
/// ```
/// elide::check_eq!(2 + 2, 4, "arithmetic");
/// ```
pub use elide_macros::check_eq;

/// A debug check that two values differ:
/// `check_ne!(left, right [, "format", args..])`. The value is reported on
/// failure (`both: ..`). Gated like [`check!`](crate::check!).
///
/// ```
/// elide::check_ne!("a", "b");
/// ```
pub use elide_macros::check_ne;

/// Whether debug mode is on for the calling module:
/// `debug_mode!()`, or `debug_mode!(target: "ns")` for another namespace.
///
/// Each call site caches the answer like a [`check!`](crate::check!) site, so asking costs
/// one relaxed load. Under the `checks_off` / `release_checks_off` features
/// it is the constant `false`, so a block guarded by it is compiled out, as
/// Python's `if __debug__:` is under `-O`. For any namespace at run time,
/// see [`debug_for`](crate::debug_for).
///
/// ```
/// # fn queue_is_sorted() -> bool { true }
/// elide::set_debug(true);
/// if elide::debug_mode!() {
///     assert!(queue_is_sorted()); // expensive validation
/// }
/// ```
#[macro_export]
macro_rules! debug_mode {
    ($($arg:tt)*) => { $crate::__macros::debug_mode!(crate = $crate, $($arg)*) };
}

/// Pre- and postconditions on a function, checked in debug mode:
/// `#[checked(requires(cond [, "format", args..]), ensures(|ret| cond [, "format", args..]), ..)]`.
///
/// - `requires(..)` runs on entry and sees the arguments (and `self`).
///   `ensures(|ret| ..)` runs after the body, on every exit (`return`, `?`,
///   macros that expand to them), with `ret` a reference to the return
///   value; it also sees the arguments the body did not move. Any number of
///   each, in order.
/// - Works on free functions, methods (`self`, `&self`, `&mut self`),
///   generic and `async` functions (for an `async fn` the checks run when the
///   future is polled). The signature, generics, attributes and docs are
///   kept as written.
/// - The function's module is its namespace. One per-function site serves
///   all its conditions: when debug mode is off, a call costs one relaxed
///   load and no condition is evaluated.
/// - A failed condition goes through the same path as [`check!`](crate::check!): a record at
///   error level, then a panic pointing at the condition, naming the
///   function, the condition as written and the message.
/// - Under `checks_off` / `release_checks_off` the function runs as
///   written; the conditions are only type-checked and leave no code. (A
///   function that returns `impl Trait` keeps the closure `ensures` needs,
///   below, with the checks in it compiled out.)
/// - With `ensures`, the body runs in a closure (an `async` block for an
///   `async fn`) so that every exit passes the postconditions; a
///   `#[track_caller]` function's `Location::caller()` then reports the body.
///
/// ```
/// #[elide::checked(
///     requires(divisor != 0, "cannot divide {} by zero", dividend),
///     ensures(|q| *q <= dividend, "quotient above the dividend"),
/// )]
/// fn divide(dividend: u32, divisor: u32) -> u32 {
///     dividend / divisor
/// }
///
/// elide::set_debug(true);
/// assert_eq!(divide(7, 2), 3);
/// let failed = std::panic::catch_unwind(|| divide(1, 0));
/// let msg = failed.unwrap_err().downcast::<String>().unwrap();
/// assert!(msg.ends_with("precondition of `divide` failed: `divisor != 0`: cannot divide 1 by zero"));
/// ```
pub use elide_macros::checked;

/// A telemetry event: `telemetry!([target: "ns",] "event", key = value, ..)`.
/// Emitted only when telemetry is on for the namespace and a telemetry sink
/// is installed; the fields are built only then. Compiled out by the
/// `telemetry_off` / `release_telemetry_off` features.
///
/// ```
/// elide::telemetry!("task.start", uid = "task.01", state = "RUNNING");
/// ```
#[macro_export]
macro_rules! telemetry {
    ($($arg:tt)*) => { $crate::__macros::telemetry!(crate = $crate, $($arg)*) };
}

/// A counter with no run-time switch: `counter!("name")` adds 1,
/// `counter!("name", n)` adds `n` (a `u64`, totals wrap). A hit is one
/// thread-local load, a test and an unlocked add on a shard only this thread
/// writes: no clock read, no lock, no locked instruction. A thread's first
/// hit of a site registers the site and gives the thread its shard. Read
/// totals with [`counters`](crate::counters) or
/// [`counter_value`](crate::counter_value) (a site never hit may be missing
/// there; it reads 0).
///
/// "No run-time switch" is not "always compiled": counters are telemetry, so
/// the `telemetry_off` / `release_telemetry_off` features remove `counter!`
/// sites together with [`telemetry!`](crate::telemetry!) (one switch takes all telemetry out of
/// a binary; see [the feature table](crate::guide::features)). The
/// counter then reads 0.
///
/// ```
/// elide::counter!("bytes.read", 512);
/// assert!(elide::counters()["bytes.read"] >= 512);
/// ```
#[macro_export]
macro_rules! counter {
    ($($arg:tt)*) => { $crate::__macros::counter!(crate = $crate, $($arg)*) };
}

/// A timed scope: `let _s = scope!([target: "ns",] "name", key = value, ..);`
/// emits the telemetry event `<name>_start` now and `<name>_stop` when `_s`
/// is dropped, both with the fields (evaluated once), the scope's id, its
/// parent's id and its trace (root) id; the stop event adds `duration_ns`.
/// Scopes nest: while `_s` lives it is the parent of scopes opened on this
/// thread. See [`telemetry::Scope`](crate::telemetry::Scope) for the fields.
///
/// Gated like [`telemetry!`](crate::telemetry!): when telemetry is off for the namespace the
/// site costs one load, a compare and a branch, yields `None` and reads no
/// clock; `telemetry_off` removes it. Bind the guard to a named variable
/// (`_s`, not `_`, which would close the scope at once). A bare
/// `scope!(..);` statement warns (`unused_must_use`), but Rust never warns
/// about `let _ = ..`, its explicit way to drop a value: that form compiles
/// silently and times nothing.
///
/// ```
/// use std::sync::Arc;
/// use elide::sink::MemorySink;
/// let mem = Arc::new(MemorySink::new());
/// elide::set_sinks([mem.clone() as Arc<dyn elide::Sink>]);
/// elide::set_telemetry(true);
/// {
///     let _s = elide::scope!("task.exec", uid = "task.000001");
///     let _inner = elide::scope!("task.stage_in");
/// }
/// let names: Vec<_> = mem.records().iter().map(|r| r.name).collect();
/// assert_eq!(names, ["task.exec_start", "task.stage_in_start", "task.stage_in_stop", "task.exec_stop"]);
/// ```
#[macro_export]
macro_rules! scope {
    ($($arg:tt)*) => { $crate::__macros::scope!(crate = $crate, $($arg)*) };
}

/// Times a function as a [`scope!`](crate::scope!): `#[timed]` names the scope after the
/// function; `#[timed(name = "task.exec", uid = %self.uid)]` gives the name
/// and fields (which may use the arguments). On an `async fn` the scope
/// spans from the first poll to completion and is current while the future
/// is polled, so scopes opened inside it, across `.await` points, have it as
/// parent.
///
/// ```
/// #[elide::timed(name = "task.exec", uid = %uid)]
/// fn exec(uid: &str) -> usize {
///     uid.len()
/// }
/// assert_eq!(exec("task.000001"), 11);
/// ```
pub use elide_macros::timed;

/// A span: `span!([target: "ns",] Level::INFO, "name", key = value, ..)`,
/// `tracing`'s form, giving a [`Span`](crate::Span). Enter it
/// (`let _e = span.enter();`, `let _s = span!(..).entered();`,
/// `span.in_scope(|| ..)`) and every record emitted on the thread meanwhile
/// carries it, with the spans it was opened in, outermost first:
/// `outer{a=1}:inner{b=2}: message b=3` (see
/// [the telemetry guide](crate::guide::telemetry)).
///
/// - The level is a path (`Level::INFO`, `Level::Info`); the span is gated
///   like a log site of that level in its namespace: removed by the static
///   gate (features, build-time filters) as a log site would be, and at run
///   time one load, compare and branch when its level is off, when it is
///   [`Span::none()`](crate::Span::none) and entering it does nothing.
/// - Fields as in [`info!`](crate::info!) (`key = v`, `%x`, `?x`, `Option`
///   values), evaluated once, only when the span is enabled. No message.
/// - When telemetry is on for the namespace too, the span is also a
///   [`scope!`](crate::scope!): `<name>_start`/`<name>_stop` events with
///   ids and duration, and an OTLP span with an OTLP sink.
/// - `parent: expr` is accepted and only type-checked: a span's parent is
///   the span entered where it opens. Spans have no `record`: the fields are
///   fixed when it opens.
///
/// ```
/// use elide::Level;
/// let records = elide::testing::capture(|| {
///     let _outer = elide::span!(Level::INFO, "request", id = 7).entered();
///     let inner = elide::debug_span!("parse", bytes = 512);
///     inner.in_scope(|| elide::info!(bytes = 3, "parsed"));
/// });
/// let chain = records[0].span.as_ref().unwrap();
/// assert_eq!(format!("{chain:?}"), "request{id=7}:parse{bytes=512}");
/// ```
#[macro_export]
macro_rules! span {
    ($($arg:tt)*) => { $crate::__macros::span!(crate = $crate, $($arg)*) };
}

/// A span at [`Level::Error`](crate::Level::Error):
/// `error_span!([target: "ns",] "name", fields..)`. See [`span!`](crate::span!).
#[macro_export]
macro_rules! error_span {
    ($($arg:tt)*) => { $crate::__macros::error_span!(crate = $crate, $($arg)*) };
}

/// A span at [`Level::Warn`](crate::Level::Warn). See [`span!`](crate::span!).
#[macro_export]
macro_rules! warn_span {
    ($($arg:tt)*) => { $crate::__macros::warn_span!(crate = $crate, $($arg)*) };
}

/// A span at [`Level::Info`](crate::Level::Info). See [`span!`](crate::span!).
///
/// ```
/// let _s = elide::info_span!("task", uid = "task.01").entered();
/// ```
#[macro_export]
macro_rules! info_span {
    ($($arg:tt)*) => { $crate::__macros::info_span!(crate = $crate, $($arg)*) };
}

/// A span at [`Level::Debug`](crate::Level::Debug). See [`span!`](crate::span!).
#[macro_export]
macro_rules! debug_span {
    ($($arg:tt)*) => { $crate::__macros::debug_span!(crate = $crate, $($arg)*) };
}

/// A span at [`Level::Trace`](crate::Level::Trace). See [`span!`](crate::span!).
#[macro_export]
macro_rules! trace_span {
    ($($arg:tt)*) => { $crate::__macros::trace_span!(crate = $crate, $($arg)*) };
}

/// Runs a function in a [`span!`](crate::span!) named after it, as
/// `tracing`'s attribute: `#[instrument(skip(self), fields(id = %self.id), err, level = "debug")]`.
///
/// - Every argument, `self` included, is a field through `Debug`
///   (`x = ?x`) unless `skip(a, b)` or `skip_all` leaves it out or
///   `fields(..)` declares a field of its name; arguments bound by a
///   pattern other than a name are left out.
/// - `fields(key = value, ..)` adds fields (`%`/`?` as in [`info!`](crate::info!));
///   they may use the arguments.
/// - `level = "debug"` (or `Level::DEBUG`; default info), `name = ".."`
///   (default: the function's name), `target = ".."` (default: the module).
/// - `err` logs an `Err` return at error level as `error = %e`
///   (`err(Debug)`: `?e`); `ret` logs the return value at the span's level
///   as `return = ?v` (`ret(Display)`: `%v`; with `err` too, the `Ok`
///   value), both inside the span, as `tracing` does.
/// - On an `async fn` the span is entered while the future is polled, so
///   records across `.await` points carry it.
/// - `parent` and `follows_from` are refused with a message.
///
/// ```
/// #[derive(Debug)]
/// struct Conn { id: u32 }
///
/// impl Conn {
///     #[elide::instrument(skip(self), fields(id = %self.id), err, level = "debug")]
///     fn send(&self, n: usize) -> Result<usize, String> {
///         elide::info!(n, "sending");
///         if n > 3 { Err("too big".into()) } else { Ok(n) }
///     }
/// }
///
/// let records = elide::testing::capture(|| {
///     let _ = Conn { id: 9 }.send(5);
/// });
/// let sending = &records[0];
/// assert_eq!(format!("{:?}", sending.span.as_ref().unwrap()), "send{n=5 id=9}");
/// records.assert_logged(elide::Level::Error, "").assert_field("error", "too big");
/// ```
pub use elide_macros::instrument;
