//! Run-time configuration: levels, debug mode and telemetry, globally and
//! per namespace, and how a site's interest is computed from them.
//!
//! Precedence for a site, first match wins:
//! 1. the most specific `*_for(namespace, ..)` rule covering the site;
//! 2. the global `set_level` / `set_debug` / `set_telemetry` value, if set;
//! 3. the environment snapshot: the `LOG_LVL` (then `VERBOSE`), `DEBUG` or
//!    `PROFILE` cascade for the site's namespace, then `RADICAL_DEFAULT_<KEY>`
//!    (see the `env` module);
//! 4. the built-in default (level `Error`, debug off, telemetry off); the
//!    application can change the level with [`set_default_level`].
//!
//! Resolution runs once per site (at its first hit) and again for every site
//! on a change, never on the hot path. Every change rewrites the cached
//! interest of all registered sites.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock, RwLock, RwLockReadGuard, RwLockWriteGuard};

use crate::callsite;
use crate::dispatch;
use crate::env::lookup::Decided;
use crate::env::{self, EnvSnapshot, Origin, Root};
use crate::metadata::{Kind, Metadata};
use crate::namespace::{env_prefix, most_specific_rule};
use crate::LevelFilter;

#[derive(Debug)]
pub(crate) struct Config {
    pub(crate) level: Option<LevelFilter>,
    pub(crate) level_for: Vec<(String, LevelFilter)>,
    pub(crate) default_level: LevelFilter,
    pub(crate) debug: Option<bool>,
    pub(crate) debug_for: Vec<(String, bool)>,
    pub(crate) telemetry: Option<bool>,
    pub(crate) telemetry_for: Vec<(String, bool)>,
    /// The environment as read at initialisation or the last reload;
    /// `None` until then (read as empty).
    pub(crate) env: Option<Arc<EnvSnapshot>>,
    /// The application root namespace (`init_ns`).
    pub(crate) root: Option<Root>,
}

static CONFIG: RwLock<Config> = RwLock::new(Config {
    level: None,
    level_for: Vec::new(),
    default_level: LevelFilter::Error,
    debug: None,
    debug_for: Vec::new(),
    telemetry: None,
    telemetry_for: Vec::new(),
    env: None,
    root: None,
});

pub(crate) fn read() -> RwLockReadGuard<'static, Config> {
    CONFIG.read().unwrap_or_else(|e| e.into_inner())
}

/// Changes the configuration without touching sites. The caller rewrites
/// them afterwards (or knows none depends on the change).
pub(crate) fn write() -> RwLockWriteGuard<'static, Config> {
    CONFIG.write().unwrap_or_else(|e| e.into_inner())
}

/// Changes the configuration and rewrites every site's cache.
pub(crate) fn update(f: impl FnOnce(&mut Config)) {
    callsite::reconfigure(|| {
        let mut c = CONFIG.write().unwrap_or_else(|e| e.into_inner());
        f(&mut c)
    });
}

fn set_rule<T>(rules: &mut Vec<(String, T)>, namespace: &str, value: T) {
    let ns = env_prefix(namespace);
    match rules.iter_mut().find(|(n, _)| *n == ns) {
        Some(slot) => slot.1 = value,
        None => rules.push((ns, value)),
    }
}

fn by_api<T>(value: T, call: String) -> Decided<T> {
    Decided {
        value,
        origin: Origin::Api(call),
        searched: Vec::new(),
        rejected: Vec::new(),
    }
}

impl Config {
    /// The environment snapshot (empty before initialisation).
    pub(crate) fn snapshot(&self) -> &EnvSnapshot {
        static EMPTY: OnceLock<EnvSnapshot> = OnceLock::new();
        match &self.env {
            Some(s) => s,
            None => EMPTY.get_or_init(EnvSnapshot::default),
        }
    }

    /// The level of a namespace prefix and who decided it. Reports rejected
    /// environment values (once each).
    pub(crate) fn level_decision(&self, prefix: &str) -> Decided<LevelFilter> {
        if let Some((ns, v)) = most_specific_rule(&self.level_for, prefix) {
            return by_api(*v, format!("set_level_for({ns})"));
        }
        if let Some(v) = self.level {
            return by_api(v, "set_level".into());
        }
        let d = env::level(
            self.snapshot(),
            prefix,
            self.root.as_ref(),
            self.default_level,
        );
        env::report(&d);
        d
    }

    fn flag_decision(
        &self,
        rules: &[(String, bool)],
        global: Option<bool>,
        api: &str,
        key: &str,
        prefix: &str,
    ) -> Decided<bool> {
        if let Some((ns, v)) = most_specific_rule(rules, prefix) {
            return by_api(*v, format!("{api}_for({ns})"));
        }
        if let Some(v) = global {
            return by_api(v, api.into());
        }
        let d = env::flag(self.snapshot(), prefix, self.root.as_ref(), key);
        env::report(&d);
        d
    }

    /// Debug mode of a namespace prefix and who decided it.
    pub(crate) fn debug_decision(&self, prefix: &str) -> Decided<bool> {
        self.flag_decision(&self.debug_for, self.debug, "set_debug", "DEBUG", prefix)
    }

    /// Telemetry of a namespace prefix and who decided it.
    pub(crate) fn telemetry_decision(&self, prefix: &str) -> Decided<bool> {
        let (rules, global) = (&self.telemetry_for, self.telemetry);
        self.flag_decision(rules, global, "set_telemetry", "PROFILE", prefix)
    }

    pub(crate) fn level_of(&self, prefix: &str) -> LevelFilter {
        self.level_decision(prefix).value
    }

    pub(crate) fn debug_of(&self, prefix: &str) -> bool {
        self.debug_decision(prefix).value
    }

    pub(crate) fn telemetry_of(&self, prefix: &str) -> bool {
        self.telemetry_decision(prefix).value
    }

    /// The prefix of process-wide settings: the root's, or `RADICAL`.
    pub(crate) fn process_prefix(&self) -> &str {
        env::process_prefix(self.root.as_ref())
    }
}

/// The value a site caches: its threshold (logs) or 0/1 (checks, telemetry).
pub(crate) fn interest_for(meta: &Metadata) -> u8 {
    crate::init::ensure();
    let prefix = env_prefix(meta.target());
    let cfg = read();
    match meta.kind() {
        Kind::Log => cfg.level_of(&prefix).min(dispatch::max_level()).as_u8(),
        Kind::Check => cfg.debug_of(&prefix) as u8,
        Kind::Telemetry => (cfg.telemetry_of(&prefix) && dispatch::wants_telemetry()) as u8,
    }
}

/// Sets the level of every namespace that has no more specific rule.
///
/// ```
/// elide::set_level(elide::LevelFilter::Debug);
/// assert!(elide::enabled!(elide::Level::Debug) || elide::sinks().iter().all(|s| s.max_level() < elide::LevelFilter::Debug));
/// ```
pub fn set_level(level: LevelFilter) {
    update(|c| c.level = Some(level));
}

/// Sets the level of one namespace and everything below it
/// (`set_level_for("my_app::db", ..)` covers `my_app::db::pool`).
///
/// ```
/// use elide::LevelFilter;
/// elide::set_level_for("my_app::db", LevelFilter::Trace);
/// assert_eq!(elide::level_for("my_app::db::pool"), LevelFilter::Trace);
/// ```
pub fn set_level_for(namespace: &str, level: LevelFilter) {
    update(|c| set_rule(&mut c.level_for, namespace, level));
}

/// Sets the built-in default level (RADICAL's is `Error`), used where
/// neither the API nor the environment says anything.
pub fn set_default_level(level: LevelFilter) {
    update(|c| c.default_level = level);
}

/// The level configured for a namespace (before sinks are taken into account).
pub fn level_for(namespace: &str) -> LevelFilter {
    crate::init::ensure();
    read().level_of(&env_prefix(namespace))
}

/// Turns debug mode (which runs `check!` sites) on or off everywhere that has
/// no more specific rule.
pub fn set_debug(on: bool) {
    update(|c| c.debug = Some(on));
}

/// Turns debug mode on or off for one namespace and everything below it.
pub fn set_debug_for(namespace: &str, on: bool) {
    update(|c| set_rule(&mut c.debug_for, namespace, on));
}

/// Whether debug mode is on for a namespace.
///
/// ```
/// elide::set_debug_for("my_app::scheduler", true);
/// assert!(elide::debug_mode_for("my_app::scheduler::queue"));
/// ```
pub fn debug_mode_for(namespace: &str) -> bool {
    crate::init::ensure();
    read().debug_of(&env_prefix(namespace))
}

/// Whether debug mode is on for the application root namespace
/// ([`init_ns`](crate::init_ns); `radical` when none was set).
pub fn debug_mode() -> bool {
    crate::init::ensure();
    let cfg = read();
    cfg.debug_of(cfg.process_prefix())
}

/// Turns telemetry (`telemetry!` sites) on or off everywhere that has no more
/// specific rule.
pub fn set_telemetry(on: bool) {
    update(|c| c.telemetry = Some(on));
}

/// Turns telemetry on or off for one namespace and everything below it.
pub fn set_telemetry_for(namespace: &str, on: bool) {
    update(|c| set_rule(&mut c.telemetry_for, namespace, on));
}

/// Whether telemetry is on for a namespace.
pub fn telemetry_for(namespace: &str) -> bool {
    crate::init::ensure();
    read().telemetry_of(&env_prefix(namespace))
}

/// Where telemetry profiles go: `PROFILE_DIR` of the application root
/// namespace (`<ROOT>_PROFILE_DIR` down to `RADICAL_PROFILE_DIR`, then
/// `RADICAL_DEFAULT_PROFILE_DIR`), relative paths taken from the working
/// directory at initialisation; by default that working directory.
pub fn profile_dir() -> PathBuf {
    crate::init::ensure();
    let cfg = read();
    let d = env::profile_dir(cfg.snapshot(), cfg.root.as_ref());
    env::report(&d);
    d.value.0
}
