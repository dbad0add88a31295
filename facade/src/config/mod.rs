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
//! This module holds the state and answers questions about it; it never
//! initialises anything or touches sites. Changes go through
//! `interest::reconfigure`, which rewrites every site's cache afterwards.
//!
//! Statics owned here: `CONFIG`.
//!
//! This folder is the configuration layer: the environment snapshot and
//! its one table of keys (`env`), and the values the API sets (here).

pub(crate) mod env;

use std::sync::{Arc, OnceLock, RwLock, RwLockReadGuard};

use crate::config::env::keys::{Key, DEBUG, PROFILE};
use crate::config::env::lookup::Decided;
use crate::record::level::LevelFilter;
use crate::site::namespace::{env_prefix, most_specific_rule};
use env::{EnvSnapshot, Origin, Root};

/// The run-time configuration.
#[derive(Debug)]
pub(crate) struct Config {
    pub(crate) level: Option<LevelFilter>,
    pub(crate) level_for: Vec<(String, LevelFilter)>,
    pub(crate) default_level: LevelFilter,
    /// Whether `default_level` came from `set_default_level` (warnings and
    /// `describe` then name that call, not the built-in default).
    pub(crate) default_level_set: bool,
    /// The level of the application's own logger while elide's records go
    /// there (no `init` yet, see `runtime::host_logger`): it stands in for
    /// the built-in default.
    pub(crate) host_level: Option<LevelFilter>,
    pub(crate) debug: Option<bool>,
    pub(crate) debug_for: Vec<(String, bool)>,
    pub(crate) telemetry: Option<bool>,
    pub(crate) telemetry_for: Vec<(String, bool)>,
    /// The environment as read at initialisation or the last reload;
    /// `None` until then (read as empty).
    pub(crate) env: Option<Arc<EnvSnapshot>>,
}

static CONFIG: RwLock<Config> = RwLock::new(Config {
    level: None,
    level_for: Vec::new(),
    default_level: LevelFilter::Error,
    default_level_set: false,
    host_level: None,
    debug: None,
    debug_for: Vec::new(),
    telemetry: None,
    telemetry_for: Vec::new(),
    env: None,
});

/// The configuration, for reading.
pub(crate) fn read() -> RwLockReadGuard<'static, Config> {
    CONFIG.read().unwrap_or_else(|e| e.into_inner())
}

/// Proof that the configuration changed and the sites' caches are stale.
#[must_use = "sites still cache the old configuration: rewrite them"]
pub(crate) struct Stale(());

/// Changes the configuration. Only `interest::reconfigure` calls this; the
/// returned [`Stale`] reminds it to rewrite the sites.
pub(crate) fn apply(f: impl FnOnce(&mut Config)) -> Stale {
    f(&mut CONFIG.write().unwrap_or_else(|e| e.into_inner()));
    Stale(())
}

/// Sets `namespace`'s rule in `rules` (replacing one for the same namespace).
pub(crate) fn set_rule<T>(rules: &mut Vec<(String, T)>, namespace: &str, value: T) {
    let ns = env_prefix(namespace);
    match rules.iter_mut().find(|(n, _)| *n == ns) {
        Some(slot) => slot.1 = value,
        None => rules.push((ns, value)),
    }
}

/// What the API set for `prefix`, if anything: the most specific
/// `{api}_for` rule, else the global `{api}` value.
fn by_api<T: Copy>(
    rules: &[(String, T)],
    global: Option<T>,
    api: &str,
    prefix: &str,
) -> Option<Decided<T>> {
    let (value, call) = match most_specific_rule(rules, prefix) {
        Some((ns, v)) => (*v, format!("{api}_for({ns})")),
        None => (global?, api.to_owned()),
    };
    Some(Decided::new(value, Origin::Api(call)))
}

impl Config {
    /// The application root namespace `init_ns` set, if any. Owned by
    /// `namespace` (the layouts read it too); asked here so every reader
    /// of the configuration finds it beside the snapshot.
    pub(crate) fn root(&self) -> Option<Arc<Root>> {
        crate::site::namespace::root()
    }

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
        if let Some(d) = by_api(&self.level_for, self.level, "set_level", prefix) {
            return d;
        }
        let (snap, root) = (self.snapshot(), self.root());
        let mut d = env::level(snap, prefix, root.as_deref(), self.fallback_level());
        if d.origin == Origin::Default && self.default_level_set {
            d.origin = Origin::Api("set_default_level".into());
        }
        env::report(&d);
        d
    }

    fn flag_decision(
        &self,
        rules: &[(String, bool)],
        global: Option<bool>,
        api: &str,
        key: &Key<bool>,
        prefix: &str,
    ) -> Decided<bool> {
        by_api(rules, global, api, prefix).unwrap_or_else(|| {
            let d = env::flag(self.snapshot(), prefix, self.root().as_deref(), key);
            env::report(&d);
            d
        })
    }

    /// Debug mode of a namespace prefix and who decided it.
    pub(crate) fn debug_decision(&self, prefix: &str) -> Decided<bool> {
        self.flag_decision(&self.debug_for, self.debug, "set_debug", &DEBUG, prefix)
    }

    /// Telemetry of a namespace prefix and who decided it.
    pub(crate) fn telemetry_decision(&self, prefix: &str) -> Decided<bool> {
        let (rules, global) = (&self.telemetry_for, self.telemetry);
        self.flag_decision(rules, global, "set_telemetry", &PROFILE, prefix)
    }

    /// The most verbose level any namespace can have under this
    /// configuration (an upper bound: exact for the API rules, and the most
    /// verbose value of any level variable in the environment).
    pub(crate) fn max_level(&self) -> LevelFilter {
        let rest = self.level.unwrap_or_else(|| {
            let fallback = self.fallback_level();
            let env = self.snapshot().max_level_var();
            env.map_or(fallback, |e| e.max(fallback))
        });
        self.level_for.iter().map(|(_, l)| *l).fold(rest, Ord::max)
    }

    /// The level when nothing names one: `set_default_level`'s, else the
    /// application's logger's while records go there, else the built-in.
    fn fallback_level(&self) -> LevelFilter {
        match self.host_level {
            Some(l) if !self.default_level_set => l,
            _ => self.default_level,
        }
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
}
