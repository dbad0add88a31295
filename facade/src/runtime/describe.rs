//! The effective configuration and who decided each part of it, for the
//! question "why is this site off?".

use std::fmt;

use crate::config;
use crate::config::env::keys::{
    AnyKey, Scope, DEBUG, KEYS, LOG_DIR, LOG_FMT, LOG_LVL, LOG_MODE, LOG_OTLP_ATTRS, LOG_TGT,
    PROFILE, PROFILE_DIR, PROFILE_HOST, PROFILE_NAME,
};
use crate::config::env::lookup::Decided;
use crate::config::env::{self, Origin};
use crate::dispatch;
use crate::record::level::LevelFilter;
use crate::runtime;
use crate::site::namespace::env_prefix;
use crate::site::static_gate::StaticGate;

/// One key of the effective configuration.
#[derive(Clone, Debug)]
pub struct Entry {
    key: &'static str,
    value: String,
    origin: Origin,
    searched: Vec<String>,
    ignored: Vec<String>,
}

impl Entry {
    /// The key: `LOG_LVL`, `DEBUG`, `PROFILE`, `LOG_TGT`, `LOG_MODE`, `LOG_FMT`,
    /// `LOG_DIR`, `PROFILE_DIR`, `PROFILE_NAME`, `PROFILE_HOST`, or a variable read under its own name
    /// (`RUST_LOG`, `NO_COLOR`, `OTEL_SERVICE_NAME`, ...; see the guide's
    /// table of variables).
    pub fn key(&self) -> &'static str {
        self.key
    }
    /// The effective value, as text (`info`, `true`, `stdout,/tmp/x.log`, ...).
    pub fn value(&self) -> &str {
        &self.value
    }
    /// What decided it: an API call, a variable, or the built-in default.
    pub fn origin(&self) -> &Origin {
        &self.origin
    }
    /// The variables looked at, in order (empty when the API decided).
    pub fn searched(&self) -> &[String] {
        &self.searched
    }
    /// Values that were set but rejected (`VAR="value": reason`).
    pub fn ignored(&self) -> &[String] {
        &self.ignored
    }
}

/// The effective configuration of one namespace; `Display` prints a table.
///
/// ```
/// let d = elide::describe_for("radical_asyncflow::engine");
/// let lvl = d.entry("LOG_LVL").unwrap();
/// println!("{d}");
/// println!("level {} decided by {}", lvl.value(), lvl.origin());
/// ```
#[derive(Clone, Debug)]
pub struct Description {
    namespace: String,
    prefix: String,
    root: Option<String>,
    entries: Vec<Entry>,
    sinks_max: LevelFilter,
    static_gate: StaticGate,
}

impl Description {
    /// All keys, in display order.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }
    /// One key.
    pub fn entry(&self, key: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.key == key)
    }
    /// The most verbose level a log site of this namespace emits: its
    /// `LOG_LVL` capped by the most verbose installed sink.
    pub fn effective_level(&self) -> LevelFilter {
        let lvl = self
            .entry(LOG_LVL.name)
            .and_then(|e| e.value.parse().ok())
            .unwrap_or(LevelFilter::Off);
        lvl.min(self.sinks_max)
    }
    /// The most verbose level whose sites for this namespace are compiled
    /// into this build at all; above it, no run-time setting brings a site
    /// back. This is the static gate, decided while the macros expand; for
    /// each kind of build the most restrictive of two controls wins:
    ///
    /// | control | debug builds | release builds (no `debug_assertions`) | `log` |
    /// |---|---|---|---|
    /// | feature `max_level_*` | decides | decides unless a `release_max_level_*` is set | same |
    /// | feature `release_max_level_*` | ignored | decides, over `max_level_*` | same |
    /// | `ELIDE_STATIC_LEVEL` | per crate/module | per crate/module, unless the next is set | none |
    /// | `ELIDE_RELEASE_STATIC_LEVEL` | ignored | per crate/module | none |
    ///
    /// The variables take env_logger's directives:
    /// `ELIDE_STATIC_LEVEL="info,my_app::db=trace,noisy_dep=off"` (a bare
    /// level is the default; `path=level` covers a crate or module path, or a
    /// site's literal `target:`; the longest path matching on a `::` boundary
    /// wins). They are read at compile time, from the environment or
    /// `.cargo/config.toml` `[env]`; changing one rebuilds the crates that
    /// use the macros, and a malformed directive is a compile error.
    /// Checks and telemetry have the same per-crate control with `on`/`off`:
    /// see [`static_checks`](Self::static_checks).
    ///
    /// ```
    /// let d = elide::describe_for("my_app::db");
    /// println!("compiled in up to {}", d.static_level());
    /// ```
    pub fn static_level(&self) -> LevelFilter {
        self.static_gate.level()
    }
    /// Whether this namespace's check sites (`check!`, `#[checked]`,
    /// `debug_mode!`) are compiled into this build: off with feature
    /// `checks_off`, in release builds also with `release_checks_off`, and
    /// per crate or module with `ELIDE_STATIC_CHECKS="on,noisy_dep=off"`.
    pub fn static_checks(&self) -> bool {
        self.static_gate.checks()
    }
    /// Whether this namespace's telemetry and counter sites are compiled
    /// into this build: off with feature `telemetry_off`, in release builds
    /// also with `release_telemetry_off`, and per crate or module with
    /// `ELIDE_STATIC_TELEMETRY` (same syntax as `ELIDE_STATIC_CHECKS`).
    pub fn static_telemetry(&self) -> bool {
        self.static_gate.telemetry()
    }
}

impl fmt::Display for Description {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "elide configuration for `{}` (prefix {}",
            self.namespace, self.prefix
        )?;
        match &self.root {
            Some(r) => writeln!(f, ", application root `{r}`)")?,
            None => writeln!(f, ", no application root)")?,
        }
        for e in &self.entries {
            writeln!(f, "  {:<12} {:<24} from {}", e.key, e.value, e.origin)?;
            if !e.searched.is_empty() {
                writeln!(f, "  {:<12} looked at {}", "", e.searched.join(", "))?;
            }
            for i in &e.ignored {
                writeln!(f, "  {:<12} ignored {i}", "")?;
            }
        }
        writeln!(
            f,
            "  log sites emit up to {} (LOG_LVL capped by the most verbose sink, {})",
            self.effective_level(),
            self.sinks_max
        )?;
        write!(f, "{}", self.static_gate)
    }
}

/// The effective configuration of the application: the root namespace set
/// with [`init_ns`](crate::init_ns), or without one the executable's name
/// (`newapp` for a binary `newapp`, so the variables `NEWAPP_LOG_LVL`, ...),
/// which is the crate of a binary whose target has the package's name. For
/// any other module use [`describe_for`] (`describe_for(module_path!())`).
///
/// ```
/// let d = elide::describe();
/// print!("{d}");
/// # assert!(d.to_string().contains("elide configuration for `"));
/// ```
pub fn describe() -> Description {
    runtime::ensure();
    let cfg = config::read();
    let name = match cfg.root().as_deref() {
        Some(r) => r.name.clone(),
        None => env::process_name(cfg.snapshot(), None),
    };
    drop(cfg);
    describe_for(&name)
}

/// The effective configuration of a namespace (`radical_asyncflow::engine`,
/// `radical.asyncflow`, or a module path), with, for each key, the value in
/// force and the API call, variable or default that decided it.
pub fn describe_for(namespace: &str) -> Description {
    runtime::ensure();
    let sinks_from_env = runtime::env_sinks::from_env();
    let sinks_max = dispatch::max_level();
    let cfg = config::read();
    let prefix = env_prefix(namespace);
    let (snap, root) = (cfg.snapshot(), cfg.root());
    let root = root.as_deref();
    let mut entries = vec![
        entry(&LOG_LVL, cfg.level_decision(&prefix).into_text()),
        entry(&DEBUG, cfg.debug_decision(&prefix).into_text()),
        entry(&PROFILE, cfg.telemetry_decision(&prefix).into_text()),
    ];
    let (tgt, mode, format) = (
        reported(env::log_targets(snap, root)),
        reported(env::log_mode(snap, root)),
        reported(env::log_format(snap, root)),
    );
    if sinks_from_env {
        entries.extend([
            entry(&LOG_TGT, tgt),
            entry(&LOG_MODE, mode),
            entry(&LOG_FMT, format),
        ]);
    } else {
        let n = dispatch::installed().map_or(0, |s| s.len());
        let api = |value| Decided::new(value, Origin::Api("set_sinks".into()));
        let unused = || api("not used (sinks set through the API)".to_owned());
        entries.extend([
            entry(&LOG_TGT, api(format!("{n} sink(s) set through the API"))),
            entry(&LOG_MODE, unused()),
            entry(&LOG_FMT, unused()),
        ]);
    }
    #[cfg(feature = "prof")]
    let host = env::profile_host(snap, root);
    // Only the `.prof` sink reads it.
    #[cfg(not(feature = "prof"))]
    let host = Decided::new(
        "not used (this build has no `prof` feature)".to_owned(),
        Origin::Default,
    );
    entries.extend([
        entry(&LOG_OTLP_ATTRS, reported(env::otlp_attrs(snap, root))),
        entry(&LOG_DIR, reported(env::log_dir(snap))),
        entry(&PROFILE_DIR, reported(env::profile_dir(snap, root))),
        entry(&PROFILE_NAME, reported(env::profile_name(snap, root))),
        entry(&PROFILE_HOST, reported(host)),
    ]);
    // The variables read under their own names, as the snapshot holds them.
    let exact = KEYS.iter().filter(|k| k.scope() == Scope::Exact);
    entries.extend(exact.map(|k| entry(*k, k.exact(snap))));
    Description {
        namespace: namespace.to_owned(),
        prefix,
        root: root.map(|r| r.name.clone()),
        entries,
        sinks_max,
        static_gate: StaticGate::of(namespace),
    }
}

/// `key`'s entry, as `d` decided it.
fn entry(key: &dyn AnyKey, d: Decided<String>) -> Entry {
    let ignored = d.rejected.into_iter();
    Entry {
        key: key.name(),
        value: d.value,
        origin: d.origin,
        searched: d.searched,
        ignored: ignored
            .map(|r| format!("{}={:?}: {}", r.var, r.raw.to_string_lossy(), r.reason))
            .collect(),
    }
}

/// `d` as text, its rejected values reported.
fn reported<T: fmt::Display>(d: Decided<T>) -> Decided<String> {
    env::report(&d);
    d.into_text()
}

#[cfg(test)]
mod tests {
    use crate::config::env::keys::{KEYS, VERBOSE};

    /// Every key of the table is described, once: `VERBOSE` within
    /// `LOG_LVL` (its cascade is on `LOG_LVL`'s "looked at" line).
    #[test]
    fn every_key_of_the_table_has_its_entry() {
        let d = super::describe_for("my_app::db");
        let described: Vec<&str> = d.entries().iter().map(|e| e.key()).collect();
        let mut expected: Vec<&str> = KEYS
            .iter()
            .map(|k| k.name())
            .filter(|n| *n != VERBOSE.name)
            .collect();
        let mut got = described.clone();
        expected.sort_unstable();
        got.sort_unstable();
        assert_eq!(got, expected, "described: {described:?}");
        let lvl = d.entry("LOG_LVL").unwrap();
        assert!(lvl.searched().iter().any(|v| v.ends_with("_VERBOSE")));
    }
}
