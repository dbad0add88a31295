//! Run-time configuration: levels, debug mode and telemetry, globally and
//! per namespace, and how a site's interest is computed from them.
//!
//! Precedence for a site, most specific first:
//! 1. the most specific `*_for(namespace, ..)` rule covering the site;
//! 2. the global `set_level` / `set_debug` / `set_telemetry` value, if set;
//! 3. the built-in default (level `Error`, debug off, telemetry off), which
//!    the application can change with [`set_default_level`].
//!
//! Every change rewrites the cached interest of all registered sites.

use std::sync::{RwLock, RwLockReadGuard};

use crate::callsite;
use crate::dispatch;
use crate::metadata::{Kind, Metadata};
use crate::namespace::{env_prefix, most_specific};
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
}

static CONFIG: RwLock<Config> = RwLock::new(Config {
    level: None,
    level_for: Vec::new(),
    default_level: LevelFilter::Error,
    debug: None,
    debug_for: Vec::new(),
    telemetry: None,
    telemetry_for: Vec::new(),
});

pub(crate) fn read() -> RwLockReadGuard<'static, Config> {
    CONFIG.read().unwrap_or_else(|e| e.into_inner())
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

impl Config {
    pub(crate) fn level_of(&self, prefix: &str) -> LevelFilter {
        most_specific(&self.level_for, prefix)
            .copied()
            .or(self.level)
            .unwrap_or(self.default_level)
    }

    pub(crate) fn debug_of(&self, prefix: &str) -> bool {
        most_specific(&self.debug_for, prefix)
            .copied()
            .or(self.debug)
            .unwrap_or(false)
    }

    pub(crate) fn telemetry_of(&self, prefix: &str) -> bool {
        most_specific(&self.telemetry_for, prefix)
            .copied()
            .or(self.telemetry)
            .unwrap_or(false)
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

/// Whether debug mode is on at the root (for namespaces without their own rule).
pub fn debug_mode() -> bool {
    debug_mode_for("")
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
