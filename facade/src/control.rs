//! The public controls: levels, debug mode and telemetry (globally and per
//! namespace), the sink set, the application root and reloading the
//! environment. Everything here enters at the top: it makes sure the
//! environment was read when it needs the configuration, and changes go
//! through `interest`, which rewrites every site.
//!
//! Statics owned here: none.

use std::path::PathBuf;
use std::sync::Arc;

use crate::config;
use crate::config::env;
use crate::dispatch::interest;
use crate::record::level::LevelFilter;
use crate::runtime::{self, env_sinks, Guard, Shutdown};
use crate::sink::Sink;
use crate::site::namespace::env_prefix;

/// Sets the level of every namespace that has no more specific rule.
///
/// ```
/// elide::set_level(elide::LevelFilter::Debug);
/// assert!(elide::enabled!(elide::Level::Debug) || elide::sinks().iter().all(|s| s.max_level() < elide::LevelFilter::Debug));
/// ```
pub fn set_level(level: LevelFilter) {
    interest::reconfigure(|c| c.level = Some(level));
}

/// The most verbose level any log site can emit now: the most verbose
/// level set for any namespace, capped by the installed sinks. A site above
/// it stays silent, so code written for `log` can guard costly work with
/// `if Level::Debug <= max_level() { .. }` (log's function of the same
/// name); [`enabled!`](crate::enabled) answers for one namespace.
///
/// ```
/// use elide::{Level, LevelFilter};
/// elide::set_level(LevelFilter::Warn);
/// assert!(elide::max_level() <= LevelFilter::Warn);
/// assert!(Level::Debug > elide::max_level());
/// ```
pub fn max_level() -> LevelFilter {
    runtime::ensure();
    interest::max_level()
}

/// `log`'s name for [`set_level`], for code written for `log`: sets the
/// level of every namespace that has no more specific rule.
pub fn set_max_level(level: LevelFilter) {
    set_level(level);
}

/// Sets the level of one namespace and everything below it
/// (`set_level_for("my_app::db", ..)` covers `my_app::db::pool`).
/// Namespaces are compared as environment prefixes are spelled
/// ([`env_prefix`](crate::env_prefix)): `my_app::db`, `my_app.db` and
/// `MY_APP_DB` name the same namespace.
///
/// ```
/// use elide::LevelFilter;
/// elide::set_level_for("my_app::db", LevelFilter::Trace);
/// assert_eq!(elide::level_for("my_app::db::pool"), LevelFilter::Trace);
/// assert_eq!(elide::level_for("my_app.db"), LevelFilter::Trace);
/// assert_eq!(elide::level_for("MY_APP_DB"), LevelFilter::Trace);
/// ```
pub fn set_level_for(namespace: &str, level: LevelFilter) {
    interest::reconfigure(|c| config::set_rule(&mut c.level_for, namespace, level));
}

/// Sets the built-in default level (RADICAL's is `Error`), used where
/// neither the API nor the environment says anything.
pub fn set_default_level(level: LevelFilter) {
    interest::reconfigure(|c| {
        c.default_level = level;
        c.default_level_set = true;
    });
}

/// The level configured for a namespace (before sinks are taken into account).
pub fn level_for(namespace: &str) -> LevelFilter {
    runtime::ensure();
    config::read().level_of(&env_prefix(namespace))
}

/// Turns debug mode (which runs `check!` sites) on or off everywhere that has
/// no more specific rule.
pub fn set_debug(on: bool) {
    interest::reconfigure(|c| c.debug = Some(on));
}

/// Turns debug mode on or off for one namespace and everything below it.
pub fn set_debug_for(namespace: &str, on: bool) {
    interest::reconfigure(|c| config::set_rule(&mut c.debug_for, namespace, on));
}

/// Whether debug mode is on for a namespace: the getter of
/// [`set_debug_for`] and [`set_debug`], as [`level_for`] and
/// [`telemetry_for`] are for levels and telemetry. For the calling
/// module, [`debug_mode!()`](crate::debug_mode!) answers with one load.
///
/// ```
/// elide::set_debug_for("my_app::scheduler", true);
/// assert!(elide::debug_for("my_app::scheduler::queue"));
/// ```
pub fn debug_for(namespace: &str) -> bool {
    runtime::ensure();
    config::read().debug_of(&env_prefix(namespace))
}

/// Former name of [`debug_for`].
#[doc(hidden)]
#[deprecated(note = "renamed `debug_for`, like `level_for` and `telemetry_for`")]
pub fn debug_mode_for(namespace: &str) -> bool {
    debug_for(namespace)
}

/// Turns telemetry (`telemetry!` sites) on or off everywhere that has no more
/// specific rule.
pub fn set_telemetry(on: bool) {
    interest::reconfigure(|c| c.telemetry = Some(on));
}

/// Turns telemetry on or off for one namespace and everything below it.
pub fn set_telemetry_for(namespace: &str, on: bool) {
    interest::reconfigure(|c| config::set_rule(&mut c.telemetry_for, namespace, on));
}

/// Whether telemetry is on for a namespace.
pub fn telemetry_for(namespace: &str) -> bool {
    runtime::ensure();
    config::read().telemetry_of(&env_prefix(namespace))
}

/// Where telemetry profiles go: `PROFILE_DIR` of the application root
/// namespace, or without one the program's own name (`<ROOT>_PROFILE_DIR`
/// down the root's cascade, then `RADICAL_DEFAULT_PROFILE_DIR`), relative paths taken from the working
/// directory at initialisation; by default that working directory.
pub fn profile_dir() -> PathBuf {
    runtime::ensure();
    let cfg = config::read();
    let d = env::profile_dir(cfg.snapshot(), cfg.root().as_deref());
    env::report(&d);
    d.value.0
}

/// The `.prof` name (`PROFILE_NAME`) and `sync_abs` host (`PROFILE_HOST`)
/// of the application root namespace, each `None` when no variable sets it
/// (a rejected value gets its one warning and is `None` too).
#[cfg(feature = "prof")]
pub(crate) fn profile_name_and_host() -> (Option<String>, Option<String>) {
    runtime::ensure();
    let cfg = config::read();
    let root = cfg.root();
    let (snap, root) = (cfg.snapshot(), root.as_deref());
    let name = env::profile_name(snap, root);
    env::report(&name);
    let name = matches!(name.origin, env::Origin::Env(_)).then_some(name.value);
    (name, env::profile_host_set(snap, root))
}

/// Replaces the installed sinks. Records already being emitted finish on the
/// old set; the old sinks are flushed (each on its own: a sink that panics
/// in `flush` is contained).
///
/// ```
/// use std::sync::Arc;
/// use elide::sink::MemorySink;
/// let mem = Arc::new(MemorySink::new());
/// elide::set_sinks([mem.clone() as Arc<dyn elide::Sink>]);
/// elide::set_level(elide::LevelFilter::Info);
/// elide::info!(uid = 7, "hello");
/// assert_eq!(mem.messages(), ["hello"]);
/// ```
pub fn set_sinks<I: IntoIterator<Item = Arc<dyn Sink>>>(sinks: I) {
    // The application chose: `LOG_TGT` no longer manages the sinks, nor
    // does its own logger stand in for them.
    runtime::set_up(true);
    interest::replace_sinks(|_| Some(sinks.into_iter().collect()));
}

/// Adds a sink to the installed set.
pub fn add_sink(sink: Arc<dyn Sink>) {
    runtime::set_up(false);
    interest::replace_sinks(|sinks| {
        let mut sinks = sinks.unwrap_or_default();
        sinks.push(sink);
        Some(sinks)
    });
}

/// The installed sinks.
pub fn sinks() -> Vec<Arc<dyn Sink>> {
    runtime::ensure();
    crate::dispatch::installed().unwrap_or_default()
}

/// Flushes every installed sink (for async sinks: waits until what was
/// accepted so far is written). Each sink is flushed on its own: one that
/// panics is contained, counted in [`stats`](crate::stats) and reported
/// once. Called from inside a sink, it does nothing.
pub fn flush() {
    runtime::shutdown(Shutdown::Flush);
}

/// Like [`init`](crate::init), and sets the application root namespace
/// (`"radical.asyncflow"`, spelled like any namespace).
///
/// A site under the root (crate `radical_asyncflow`) is configured by its
/// own namespace as usual. A site outside it (crate `my_app`, or a
/// dependency) tries its own variables first (`MY_APP_LOG_LVL`, `MY_LOG_LVL`)
/// and then the root's (`RADICAL_ASYNCFLOW_LOG_LVL`, `RADICAL_LOG_LVL`), so
/// the root's variables control the whole application while every crate
/// keeps its own. The root also chooses `LOG_TGT` and `PROFILE_DIR`, and the
/// file name of `LOG_TGT=.` (`radical.asyncflow.log`). Without `init_ns` the
/// root is the program's own name (its executable's): see the guide's
/// [configuration chapter](crate::guide::configuration).
///
/// Sites resolved before the call are rewritten.
///
/// ```
/// let _guard = elide::init_ns("radical.asyncflow");
/// elide::info!("controlled by RADICAL_ASYNCFLOW_LOG_LVL, then RADICAL_LOG_LVL");
/// ```
#[must_use = "dropping the guard flushes the sinks; keep it until the end of main"]
pub fn init_ns(root: &str) -> Guard {
    let first = !runtime::started();
    // Set before `ensure` so the first sinks already follow the root.
    crate::site::namespace::set_root(root);
    // The sites' settings depend on the root: rewrite them.
    interest::reconfigure(|_| {});
    runtime::set_up(false);
    if !first {
        env_sinks::refresh(false);
    }
    install_bridges();
    Guard::new()
}

/// Initialises elide now instead of at the first call site, and returns a
/// guard that flushes every sink when dropped. Keep it alive in `main`.
///
/// With the `log` feature, it also routes the `log` crate's records into
/// elide (`elide::bridge::log::install`) when no
/// `log` logger is installed yet.
///
/// Before `init` (or sinks installed through the API), elide's records go
/// to the application's own `log` logger or `tracing` subscriber if it has
/// one, and `RUST_LOG` is not read; from `init` on, to elide's sinks (see
/// [where a library's records go](crate::guide::migrating#where-a-librarys-records-go)).
///
/// ```
/// let _guard = elide::init();
/// elide::error!("written to stderr");
/// ```
#[must_use = "dropping the guard flushes the sinks; keep it until the end of main"]
pub fn init() -> Guard {
    runtime::set_up(false);
    install_bridges();
    Guard::new()
}

/// The inbound bridges `init` installs when their features are on.
fn install_bridges() {
    #[cfg(feature = "log")]
    let _ = crate::bridge::log::install();
}

/// Reads the environment again and rebuilds every site's cache, and the
/// sinks that came from `LOG_TGT` (files are reopened, which also suits log
/// rotation). Settings made through the API keep their precedence.
///
/// ```
/// elide::reload_from_env();
/// ```
pub fn reload_from_env() {
    runtime::ensure();
    let snap = runtime::read_env();
    interest::reconfigure(|c| c.env = Some(snap));
    env_sinks::refresh(true);
}
