//! Configuration from the environment, in the style of RADICAL-Cybertools.
//!
//! **Snapshot.** The variables elide understands are read once per process,
//! into an [`EnvSnapshot`], at [`init`](crate::init) or when the first site
//! resolves; later changes to the environment are seen only after
//! [`reload_from_env`](crate::reload_from_env). Everything below is a pure
//! function of a snapshot, so it is tested without touching the process
//! environment.
//!
//! **Cascade.** A key is looked up for a namespace prefix from the most
//! specific variable to the least (`RADICAL_ASYNCFLOW_ENGINE_LOG_LVL`,
//! `RADICAL_ASYNCFLOW_LOG_LVL`, `RADICAL_LOG_LVL`). The first variable that
//! exists decides, even if it is empty; empty (or only whitespace) means
//! "not set" and passes on to `RADICAL_DEFAULT_<KEY>`, then to the built-in
//! default. There is no bare `<KEY>` fallback. Every program has an
//! application root: the `init_ns` one, else its own name (the
//! executable's). A site outside the root tries its own cascade first and
//! the root's after it (see [`lookup::cascade`]); the application's keys
//! (`LOG_TGT`, ...) follow the root's cascade.
//!
//! **Bad values** are rejected with exactly one warning per variable and
//! value on stderr, naming the variable, the value and the fallback used.
//! **Unread variables** (set, but of no namespace or root elide reads) get
//! one warning each, saying why.
//!
//! The keys themselves are declared once, in [`keys`].
//!
//! Statics owned here: the set of warnings already given (in `warn_once`).

pub(crate) mod keys;
pub(crate) mod lookup;
pub(crate) mod parse;
#[cfg(feature = "rust-log")]
pub(crate) mod rust_log;

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use crate::record::level::LevelFilter;
use keys::{Ctx, Key, KEYS, LOG_DIR, LOG_FMT, LOG_LVL, LOG_MODE, LOG_OTLP_ATTRS, LOG_TGT};
use keys::{PROFILE_DIR, PROFILE_NAME, VERBOSE};
pub(crate) use lookup::clip;
use lookup::{Decided, Warning};
use parse::{LogFormat, LogMode, Target, Targets};

/// The variables elide understands, captured once.
#[derive(Debug, Default)]
pub(crate) struct EnvSnapshot {
    /// Sorted by name, one entry per name. A handful of variables: a sorted
    /// list serves the lookups without linking a hash map into every
    /// program.
    vars: Vec<(String, OsString)>,
    /// For each of `vars`, whether some lookup's cascade named it (so a
    /// per-namespace variable that no site of the program looked at can be
    /// reported as ignored).
    looked_at: Vec<AtomicBool>,
    /// The program's own root: its executable's name, whose variables
    /// answer for the whole program unless `init_ns` names another root.
    program: Option<Root>,
    /// The working directory at capture time: the base of relative paths.
    cwd: PathBuf,
    /// The executable's file stem, for `LOG_TGT=.` without a root.
    exe_name: String,
    /// `$HOME`, for a leading `~/` in paths (`None` when unset).
    home: Option<PathBuf>,
    /// `RUST_LOG`, parsed once: the last fallback of a level.
    #[cfg(feature = "rust-log")]
    rust_log: Option<rust_log::Directives>,
    /// Whether `rust_log` is left unread until the application sets elide
    /// up (see [`EnvSnapshot::without_rust_log`]).
    #[cfg(feature = "rust-log")]
    rust_log_held: AtomicBool,
}

impl EnvSnapshot {
    /// Reads the process environment. Only the variables of the keys in
    /// [`KEYS`] are kept; values stay as the OS gave them (non-UTF-8 ones
    /// are kept and reported when looked up).
    pub(crate) fn capture() -> EnvSnapshot {
        let vars = std::env::vars_os().filter_map(|(k, v)| Some((k.into_string().ok()?, v)));
        let cwd = std::env::current_dir().unwrap_or_default();
        let exe_name = crate::os::process::exe_name().unwrap_or_default();
        let mut snap = EnvSnapshot::from_vars(vars).with_process(cwd, exe_name);
        snap.home = std::env::var_os("HOME").map(PathBuf::from);
        snap
    }

    /// A snapshot of the given variables, with an empty working directory.
    pub(crate) fn from_vars(vars: impl IntoIterator<Item = (String, OsString)>) -> EnvSnapshot {
        let mut snap = EnvSnapshot::default();
        let wanted = vars.into_iter().filter(|(k, _)| {
            KEYS.iter().any(|key| key.matches(k))
                    || is_for_key(k, NEAR_MISS)
                    // The exporter's variables it does not read, kept to
                    // be warned about by name.
                    || k.starts_with("OTEL_EXPORTER_OTLP_")
        });
        for (k, v) in wanted {
            // A repeated name: the last value wins, as in a map.
            match snap.find(&k) {
                Ok(i) => snap.vars[i].1 = v,
                Err(i) => snap.vars.insert(i, (k, v)),
            }
        }
        snap.looked_at = snap.vars.iter().map(|_| AtomicBool::new(false)).collect();
        #[cfg(feature = "rust-log")]
        {
            snap.rust_log = snap
                .get(RUST_LOG)
                .map(|v| rust_log::Directives::parse(&v.to_string_lossy()));
        }
        snap
    }

    /// The same snapshot with `RUST_LOG` left unread: elide reads
    /// `RUST_LOG` only once the application has set it up (a library's
    /// records do not follow a variable meant for the application's own
    /// logger). Its value stays in the snapshot, so `describe` still shows it.
    pub(crate) fn without_rust_log(self) -> EnvSnapshot {
        #[cfg(feature = "rust-log")]
        self.rust_log_held.store(true, Ordering::Relaxed);
        self
    }

    /// Reads `RUST_LOG` from now on (the application set elide up); the
    /// caller rewrites the sites.
    pub(crate) fn read_rust_log(&self) {
        #[cfg(feature = "rust-log")]
        self.rust_log_held.store(false, Ordering::Relaxed);
    }

    /// The parsed `RUST_LOG`, unless it is left unread.
    #[cfg(feature = "rust-log")]
    fn rust_log(&self) -> Option<&rust_log::Directives> {
        let held = self.rust_log_held.load(Ordering::Relaxed);
        self.rust_log.as_ref().filter(|_| !held)
    }

    /// Sets the working directory and the executable's name, which names
    /// the program's own root (none without a name).
    pub(crate) fn with_process(
        mut self,
        cwd: impl Into<PathBuf>,
        exe_name: impl Into<String>,
    ) -> EnvSnapshot {
        self.cwd = cwd.into();
        self.exe_name = exe_name.into();
        self.program = Some(Root::new(&self.exe_name)).filter(|r| !r.prefix.is_empty());
        self
    }

    /// The first variable for `key` (any namespace, or the default one)
    /// that holds a true flag, and its value: used to decide whether
    /// telemetry output is needed at all before any site has resolved.
    pub(crate) fn flag_on(&self, key: &Key<bool>) -> Option<(&str, &OsStr)> {
        self.vars
            .iter()
            .find(|(k, v)| {
                is_for_key(k, key.name)
                    && v.to_str().is_some_and(|v| parse::parse_flag(v) == Ok(true))
            })
            .map(|(k, v)| (k.as_str(), v.as_os_str()))
    }

    /// The most verbose level any `LOG_LVL`/`VERBOSE` variable (of any
    /// namespace, or the default one) sets, ignoring bad values: an upper
    /// bound of what the cascade can give a namespace.
    pub(crate) fn max_level_var(&self) -> Option<LevelFilter> {
        let vars = self
            .vars
            .iter()
            .filter(|(k, _)| is_for_key(k, LOG_LVL.name) || is_for_key(k, VERBOSE.name))
            .filter_map(|(_, v)| parse::parse_level(v.to_str()?).ok());
        #[cfg(feature = "rust-log")]
        let vars = vars.chain(self.rust_log().and_then(|d| d.max_level()));
        vars.max()
    }

    /// The parsing context of keys without a log directory of their own.
    pub(crate) fn ctx(&self) -> Ctx<'_> {
        Ctx {
            cwd: &self.cwd,
            log_dir: &self.cwd,
            name: &self.exe_name,
            home: self.home.as_deref(),
        }
    }

    /// Notes that a lookup's cascade named `name`.
    pub(crate) fn look_at(&self, name: &str) {
        if let Ok(i) = self.find(name) {
            self.looked_at[i].store(true, Ordering::Relaxed);
        }
    }

    /// The raw value of one variable.
    pub(crate) fn get(&self, name: &str) -> Option<&OsStr> {
        Some(self.vars[self.find(name).ok()?].1.as_os_str())
    }

    /// Where `name` is in `vars`, or where it would go.
    fn find(&self, name: &str) -> Result<usize, usize> {
        self.vars.binary_search_by(|(k, _)| k.as_str().cmp(name))
    }
}

/// The `env_logger` variable, read as the last fallback of a level.
const RUST_LOG: &str = keys::RUST_LOG.name;

/// The key name other tools use for a level: its variables
/// (`RADICAL_LOG_LEVEL`) are not read, but warned about once.
const NEAR_MISS: &str = "LOG_LEVEL";

pub(crate) fn is_for_key(name: &str, key: &str) -> bool {
    name.len() > key.len() + 1
        && name.ends_with(key)
        && name.as_bytes()[name.len() - key.len() - 1] == b'_'
}

/// Where an effective setting came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// An API call, e.g. `set_level_for(RADICAL_ASYNCFLOW)` or `set_sinks`.
    Api(String),
    /// An environment variable, by name.
    Env(String),
    /// The built-in default.
    Default,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Api(call) => f.write_str(call),
            Origin::Env(var) => f.write_str(var),
            Origin::Default => f.write_str("built-in default"),
        }
    }
}

pub(crate) use crate::site::namespace::Root;

/// The application's root: the one `init_ns` set, else the program's own
/// (its executable's name). One rule for every key: a site reads its own
/// namespace's variables, then the application's; a key of the application
/// (`LOG_TGT`, `PROFILE_DIR`, ...) reads the application's.
pub(crate) fn app_root<'a>(snap: &'a EnvSnapshot, root: Option<&'a Root>) -> Option<&'a Root> {
    root.or(snap.program.as_ref())
}

/// The prefix of the application's keys (`LOG_TGT`, `PROFILE_DIR`): the
/// application root's (empty without one: then only `RADICAL_DEFAULT_<KEY>`
/// is read).
pub(crate) fn process_prefix<'a>(snap: &'a EnvSnapshot, root: Option<&'a Root>) -> &'a str {
    app_root(snap, root).map_or("", |r| r.prefix.as_str())
}

/// Why a variable of the application's own keys, or of no site's
/// namespace, is not read: where the application's variables are.
fn app_variables(snap: &EnvSnapshot, root: Option<&Root>) -> String {
    match app_root(snap, root) {
        Some(r) => format!(
            "this application's variables start with {}_ (`init_ns` names another root)",
            r.prefix
        ),
        None => {
            "this application has no name to read variables by (`init_ns` gives one)".to_owned()
        }
    }
}

/// One warning for each variable of an application key (`LOG_TGT`,
/// `LOG_MODE`, `LOG_FMT`, `PROFILE_DIR`) that is set but not read because
/// it is not the application root's (`RADICAL_LOG_TGT` in program `app`
/// without `init_ns("radical")`), and for each `<X>_LOG_DIR` but
/// `RADICAL_DEFAULT_LOG_DIR`. To be reported when the root or the snapshot
/// changed.
pub(crate) fn ignored_app_vars(snap: &EnvSnapshot, root: Option<&Root>) -> Vec<Warning> {
    let prefix = process_prefix(snap, root);
    let mut out = Vec::new();
    for (name, raw) in &snap.vars {
        let Some(key) = KEYS.iter().find(|k| k.matches(name)) else {
            continue;
        };
        let (read, reason) = match key.scope() {
            keys::Scope::Process => {
                let whole = format!("{} is read for the application as a whole", key.name());
                let reason = format!("{whole}, and {}", app_variables(snap, root));
                (app_vars(prefix, key.name()), reason)
            }
            keys::Scope::DefaultOnly => {
                let read = app_vars("", key.name());
                let reason = format!("only {} is read", read.join(", "));
                (read, reason)
            }
            keys::Scope::Namespace | keys::Scope::Exact => continue,
        };
        if !read.contains(name) && !is_blank(raw) {
            let fallback = format!("{} instead", read.join(", "));
            out.push(Warning::new(name, raw, reason, fallback));
        }
    }
    out
}

/// One warning for each per-namespace variable (`LOG_LVL`, `DEBUG`,
/// `PROFILE`, `VERBOSE`) that is set but that no lookup so far looked at:
/// no site of this program is under its namespace, and it is not the
/// application root's. To be reported at exit, when every site that ran
/// has looked.
pub(crate) fn unread_namespace_vars(snap: &EnvSnapshot, root: Option<&Root>) -> Vec<Warning> {
    let app = process_prefix(snap, root);
    let mut out = Vec::new();
    for (i, (name, raw)) in snap.vars.iter().enumerate() {
        let Some(key) = KEYS.iter().find(|k| k.matches(name)) else {
            continue;
        };
        // The application's own variables apply to every site, even when
        // none ran.
        if key.scope() != keys::Scope::Namespace
            || snap.looked_at[i].load(Ordering::Relaxed)
            || is_blank(raw)
            || app_vars(app, key.name()).contains(name)
        {
            continue;
        }
        let ns = &name[..name.len() - key.name().len() - 1];
        // `DEBUG` and `PROFILE` end other tools' variables too
        // (`CARGO_PROFILE_DEV_DEBUG`, `AWS_PROFILE`): one nobody read is
        // reported only within the program's family. `LOG_LVL` and
        // `VERBOSE` are elide's own words, reported under any namespace.
        let others_too = [keys::DEBUG.name, keys::PROFILE.name].contains(&key.name());
        if others_too && !in_family(ns, app) {
            continue;
        }
        // A value its parser refuses says so first: the usual mistake (a
        // crate logging through a bridge, whose records its own level check
        // stopped, so no lookup ran to name the value).
        let refused = match raw.to_str() {
            Some(text) => key.check(text, &snap.ctx()).err(),
            None => Some("not valid UTF-8".to_owned()),
        };
        let unread = format!(
            "no site of this program under the namespace {ns} asked for {}, and {}",
            key.name(),
            app_variables(snap, root)
        );
        let reason = match refused {
            Some(refused) => format!("{refused}; also, {unread}"),
            None => unread,
        };
        let fallback = format!(
            "each site's own {} variables, then {} instead",
            key.name(),
            app_vars(app, key.name()).join(", ")
        );
        out.push(Warning::new(name, raw, reason, fallback));
    }
    out
}

/// Whether namespace `ns` is of this program's family: its first word is
/// the application prefix's, or RADICAL's (whose `RADICAL_DEFAULT_*` every
/// lookup reads), so a mistyped namespace of the program's own is still
/// reported.
fn in_family(ns: &str, app: &str) -> bool {
    let first = |s: &str| s.split('_').next().unwrap_or("").to_owned();
    let ns = first(ns);
    ns == first(&lookup::default_var("")) || (!app.is_empty() && ns == first(app))
}

/// The variables of `key` that the application root with `prefix` reads:
/// its cascade, then `RADICAL_DEFAULT_<KEY>`.
fn app_vars(prefix: &str, key: &str) -> Vec<String> {
    let mut vars = lookup::cascade(prefix, None, key);
    vars.push(lookup::default_var(key));
    vars
}

/// Empty or only whitespace: "not set".
fn is_blank(raw: &OsStr) -> bool {
    raw.to_str().is_some_and(|s| s.trim().is_empty())
}

/// `LOG_LVL` (then legacy `VERBOSE`) for a site prefix.
pub(crate) fn level(
    snap: &EnvSnapshot,
    prefix: &str,
    root: Option<&Root>,
    builtin: LevelFilter,
) -> Decided<LevelFilter> {
    let root = app_root(snap, root).map(|r| r.prefix.as_str());
    warn_near_misses(snap);
    let chains = [LOG_LVL.cascade(prefix, root), VERBOSE.cascade(prefix, root)];
    let d = LOG_LVL.resolve(snap, &chains, &snap.ctx(), builtin);
    with_rust_log(snap, prefix, d)
}

/// When no RADICAL-style variable decided: `RUST_LOG`, then the default.
#[cfg(feature = "rust-log")]
fn with_rust_log(
    snap: &EnvSnapshot,
    prefix: &str,
    mut d: Decided<LevelFilter>,
) -> Decided<LevelFilter> {
    if let Some(directives) = snap.rust_log() {
        d.searched.push(RUST_LOG.to_owned());
        warn_ignored_directives(snap, directives);
        if d.origin == Origin::Default {
            if let Some(level) = directives.level_of(prefix) {
                d.value = level;
                d.origin = Origin::Env(RUST_LOG.to_owned());
            }
        }
    }
    d
}

/// Without the cargo feature `rust-log`, a set `RUST_LOG` is not read: one
/// warning, so a user who set it learns why it has no effect.
#[cfg(not(feature = "rust-log"))]
fn with_rust_log(snap: &EnvSnapshot, _: &str, d: Decided<LevelFilter>) -> Decided<LevelFilter> {
    if let Some(raw) = snap.get(RUST_LOG).filter(|v| !is_blank(v)) {
        let reason =
            "RUST_LOG directives need elide's cargo feature `rust-log`, which this build lacks";
        let fallback = "the LOG_LVL variables and the built-in default";
        warn_once(&Warning::new(RUST_LOG, raw, reason, fallback));
    }
    d
}

/// One warning per `RUST_LOG` directive that was ignored.
#[cfg(feature = "rust-log")]
fn warn_ignored_directives(snap: &EnvSnapshot, d: &rust_log::Directives) {
    let raw = snap.get(RUST_LOG).unwrap_or_default();
    for (directive, reason) in &d.ignored {
        let part = Some(format!("the directive `{directive}`"));
        let whole = Warning::new(RUST_LOG, raw, reason.as_str(), "the other directives");
        warn_once(&Warning { part, ..whole });
    }
}

/// One "did you mean" warning per `*_LOG_LEVEL` variable.
fn warn_near_misses(snap: &EnvSnapshot) {
    for (name, raw) in snap.vars.iter().filter(|(k, _)| is_for_key(k, NEAR_MISS)) {
        let ns = &name[..name.len() - NEAR_MISS.len() - 1];
        let reason = format!(
            "not a variable elide reads (did you mean `{ns}_{}`?)",
            LOG_LVL.name
        );
        let w = Warning::new(name, raw, reason, "the other level variables");
        warn_once(&w);
    }
}

/// A flag key (`DEBUG`, `PROFILE`) for a site prefix; default off.
pub(crate) fn flag(
    snap: &EnvSnapshot,
    prefix: &str,
    root: Option<&Root>,
    key: &Key<bool>,
) -> Decided<bool> {
    let root = app_root(snap, root).map(|r| r.prefix.as_str());
    key.resolve(snap, &[key.cascade(prefix, root)], &snap.ctx(), false)
}

/// `RADICAL_DEFAULT_LOG_DIR`, default the working directory.
pub(crate) fn log_dir(snap: &EnvSnapshot) -> Decided<Shown<PathBuf>> {
    LOG_DIR.resolve(snap, &[], &snap.ctx(), Shown(snap.cwd.clone()))
}

/// `PROFILE_DIR` of the application root, default the working directory.
pub(crate) fn profile_dir(snap: &EnvSnapshot, root: Option<&Root>) -> Decided<Shown<PathBuf>> {
    let cwd = Shown(snap.cwd.clone());
    process_key(&PROFILE_DIR, snap, root, &snap.ctx(), cwd)
}

/// One key of the process: its cascade for the process prefix.
fn process_key<T>(
    key: &Key<T>,
    snap: &EnvSnapshot,
    root: Option<&Root>,
    ctx: &Ctx<'_>,
    builtin: T,
) -> Decided<T> {
    let chain = [key.cascade(process_prefix(snap, root), None)];
    key.resolve(snap, &chain, ctx, builtin)
}

/// `PROFILE_NAME` of the application root, default [`process_name`].
pub(crate) fn profile_name(snap: &EnvSnapshot, root: Option<&Root>) -> Decided<String> {
    let name = process_name(snap, root);
    process_key(&PROFILE_NAME, snap, root, &snap.ctx(), name)
}

/// `PROFILE_HOST` of the application root, default the name found in
/// `/etc/hosts` ([`crate::os::host::hostname`]).
#[cfg(feature = "prof")]
pub(crate) fn profile_host(snap: &EnvSnapshot, root: Option<&Root>) -> Decided<String> {
    let host = crate::os::host::hostname();
    process_key(&keys::PROFILE_HOST, snap, root, &snap.ctx(), host)
}

/// [`profile_host`] when a variable sets it; `None` for the default or a
/// rejected value (which gets its one warning).
#[cfg(feature = "prof")]
pub(crate) fn profile_host_set(snap: &EnvSnapshot, root: Option<&Root>) -> Option<String> {
    let d = profile_host(snap, root);
    report(&d);
    matches!(d.origin, Origin::Env(_)).then_some(d.value)
}

/// `LOG_OTLP_ATTRS` of the application root, default `none`.
pub(crate) fn otlp_attrs(snap: &EnvSnapshot, root: Option<&Root>) -> Decided<String> {
    process_key(&LOG_OTLP_ATTRS, snap, root, &snap.ctx(), "none".into())
}

/// The process's name for files it writes (`LOG_TGT=.`, the start-up
/// `.prof`): the root namespace in lower case (`::` written as `.`), else
/// the executable's file stem, else `elide`.
pub(crate) fn process_name(snap: &EnvSnapshot, root: Option<&Root>) -> String {
    match root {
        Some(r) if !r.name.is_empty() => r.name.replace("::", ".").to_lowercase(),
        _ if !snap.exe_name.is_empty() => snap.exe_name.clone(),
        _ => "elide".to_owned(),
    }
}

/// `LOG_TGT` of the application root, default stderr; `.` names
/// `<log dir>/<process name>.log`.
pub(crate) fn log_targets(snap: &EnvSnapshot, root: Option<&Root>) -> Decided<Targets> {
    #[cfg(feature = "file")]
    let (dir, name) = (log_dir(snap).value.0, process_name(snap, root));
    // Without `file` no file is opened (a file target is replaced by
    // stderr, with a warning), so its name needs no `LOG_DIR` lookup.
    #[cfg(not(feature = "file"))]
    let (dir, name) = (snap.cwd.clone(), snap.exe_name.clone());
    let ctx = Ctx {
        log_dir: &dir,
        name: &name,
        ..snap.ctx()
    };
    process_key(&LOG_TGT, snap, root, &ctx, Targets(vec![Target::Stderr]))
}

/// `LOG_MODE` of the application root, default buffered.
pub(crate) fn log_mode(snap: &EnvSnapshot, root: Option<&Root>) -> Decided<LogMode> {
    process_key(&LOG_MODE, snap, root, &snap.ctx(), LogMode(None))
}

/// `LOG_FMT` of the application root, default the RADICAL line.
pub(crate) fn log_format(snap: &EnvSnapshot, root: Option<&Root>) -> Decided<LogFormat> {
    let radical = LogFormat(crate::format::Format::Radical);
    process_key(&LOG_FMT, snap, root, &snap.ctx(), radical)
}

/// A path that displays itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Shown<T>(pub(crate) T);

impl fmt::Display for Shown<PathBuf> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0.display())
    }
}

/// Prints the warnings of a resolution, each (variable, value, reason) once
/// per process.
pub(crate) fn report<T: fmt::Display>(decided: &Decided<T>) {
    if !decided.rejected.is_empty() {
        decided.warnings().iter().for_each(warn_once);
    }
}

/// Prints `w` on stderr unless this variable, value and reason were already
/// reported.
pub(crate) fn warn_once(w: &Warning) {
    // A few warnings per process: a list, so no hash map is linked for this.
    static SEEN: Mutex<Vec<(String, OsString, String)>> = Mutex::new(Vec::new());
    let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
    let key = (&w.var, &w.raw, &w.reason);
    if !seen.iter().any(|(v, r, why)| (v, r, why) == key) {
        seen.push((w.var.clone(), w.raw.clone(), w.reason.clone()));
        // Best effort: there is nowhere else to report a broken stderr.
        let _ = writeln!(std::io::stderr(), "{w}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snap(vars: &[(&str, &str)]) -> EnvSnapshot {
        EnvSnapshot::from_vars(vars.iter().map(|(k, v)| (k.to_string(), OsString::from(v))))
            .with_process("/run", "probe")
    }

    #[test]
    fn snapshot_keeps_only_known_keys() {
        let s = snap(&[
            ("RADICAL_LOG_LVL", "info"),
            ("PATH", "/bin"),
            ("LOG_LVL", "debug"),
            ("RADICAL_LOG_LVLX", "x"),
            ("X_PROFILE_DIR", "/p"),
        ]);
        assert!(s.get("RADICAL_LOG_LVL").is_some());
        assert!(s.get("X_PROFILE_DIR").is_some());
        assert!(s.get("PATH").is_none());
        assert!(s.get("LOG_LVL").is_none());
        assert!(s.get("RADICAL_LOG_LVLX").is_none());
    }

    #[test]
    fn snapshot_finds_every_name_in_any_order_and_the_last_value_wins() {
        let names = [
            "RADICAL_Z_DEBUG",
            "RADICAL_LOG_LVL",
            "A_PROFILE",
            "RUST_LOG",
            "M_LOG_TGT",
        ];
        let s = snap(&[
            (names[0], "1"),
            (names[1], "info"),
            (names[2], "on"),
            (names[1], "debug"),
            (names[3], "warn"),
            (names[4], "-"),
        ]);
        for name in names {
            assert!(s.get(name).is_some(), "{name} is lost");
        }
        assert_eq!(s.get("RADICAL_LOG_LVL"), Some(OsStr::new("debug")));
        assert_eq!(s.get("RADICAL_LOG_LVM"), None);
    }

    #[test]
    fn level_uses_root_and_builtin() {
        let s = snap(&[("RADICAL_ASYNCFLOW_LOG_LVL", "info")]);
        let root = Root::new("radical.asyncflow");
        assert_eq!(
            level(&s, "MY_APP", Some(&root), LevelFilter::Warn).value,
            LevelFilter::Info
        );
        assert_eq!(
            level(&s, "MY_APP", None, LevelFilter::Warn).value,
            LevelFilter::Warn
        );
    }

    #[cfg(feature = "rust-log")]
    #[test]
    fn rust_log_decides_only_when_no_radical_variable_does() {
        let rust_log = ("RUST_LOG", "warn,my_app::db=trace,hyper=off");
        let s = snap(&[rust_log, ("MY_APP_LOG_LVL", "info")]);
        // A RADICAL-style variable of the namespace wins.
        let d = level(&s, "MY_APP_DB", None, LevelFilter::Error);
        assert_eq!(d.value, LevelFilter::Info);
        assert_eq!(d.origin, Origin::Env("MY_APP_LOG_LVL".into()));
        // None for this namespace: RUST_LOG's most specific directive.
        let d = level(&s, "HYPER_PROTO", None, LevelFilter::Error);
        assert_eq!(d.value, LevelFilter::Off);
        assert_eq!(d.origin, Origin::Env("RUST_LOG".into()));
        assert_eq!(d.searched.last().map(String::as_str), Some("RUST_LOG"));
        let d = level(&s, "TOKIO", None, LevelFilter::Error);
        assert_eq!(d.value, LevelFilter::Warn);
        // RADICAL_DEFAULT_LOG_LVL is RADICAL-style: it beats RUST_LOG.
        let s = snap(&[rust_log, ("RADICAL_DEFAULT_LOG_LVL", "debug")]);
        assert_eq!(
            level(&s, "TOKIO", None, LevelFilter::Error).value,
            LevelFilter::Debug
        );
        // Without a covering directive, the built-in default.
        let s = snap(&[("RUST_LOG", "hyper=off")]);
        let d = level(&s, "TOKIO", None, LevelFilter::Error);
        assert_eq!((d.value, d.origin), (LevelFilter::Error, Origin::Default));
        // The most verbose level anywhere includes RUST_LOG's.
        let s = snap(&[
            ("RUST_LOG", "my_app::db=trace"),
            ("RADICAL_LOG_LVL", "info"),
        ]);
        assert_eq!(s.max_level_var(), Some(LevelFilter::Trace));
    }

    #[test]
    fn a_key_needs_a_namespace_before_its_underscore() {
        assert!(is_for_key("RADICAL_LOG_LVL", "LOG_LVL"));
        assert!(is_for_key("A_LOG_LVL", "LOG_LVL"));
        assert!(!is_for_key("_LOG_LVL", "LOG_LVL"), "an empty namespace");
        assert!(!is_for_key("LOG_LVL", "LOG_LVL"));
        assert!(!is_for_key("RADICALLOG_LVL", "LOG_LVL"));
    }

    #[test]
    fn the_most_verbose_level_variable_is_any_namespaces_log_lvl_or_verbose() {
        let s = snap(&[("RADICAL_LOG_LVL", "debug"), ("OTHER_LOG_LVL", "info")]);
        assert_eq!(s.max_level_var(), Some(LevelFilter::Debug));
        let s = snap(&[("RADICAL_VERBOSE", "trace"), ("RADICAL_LOG_LVL", "warn")]);
        assert_eq!(s.max_level_var(), Some(LevelFilter::Trace));
        assert_eq!(snap(&[("RADICAL_DEBUG", "1")]).max_level_var(), None);
    }

    #[test]
    fn a_true_flag_counts_only_for_its_own_key() {
        let s = snap(&[("RADICAL_DEBUG", "1"), ("RADICAL_PROFILE", "0")]);
        assert_eq!(s.flag_on(&keys::PROFILE), None);
        let s = snap(&[("RADICAL_DEBUG", "1"), ("RADICAL_PILOT_PROFILE", "yes")]);
        assert_eq!(
            s.flag_on(&keys::PROFILE),
            Some(("RADICAL_PILOT_PROFILE", OsStr::new("yes")))
        );
    }

    #[cfg(any(feature = "file", feature = "prof"))]
    #[test]
    fn the_process_name_is_the_root_else_the_executable_else_elide() {
        let s = snap(&[]);
        assert_eq!(
            process_name(&s, Some(&Root::new("Radical::AsyncFlow"))),
            "radical.asyncflow"
        );
        assert_eq!(process_name(&s, Some(&Root::new(""))), "probe");
        assert_eq!(process_name(&s, None), "probe");
        let nameless = EnvSnapshot::from_vars(Vec::new()).with_process("/run", "");
        assert_eq!(process_name(&nameless, None), "elide");
        assert_eq!(process_name(&nameless, Some(&Root::new(""))), "elide");
    }

    #[test]
    fn near_miss_level_names_are_kept_for_their_warning_only() {
        let s = snap(&[("RADICAL_LOG_LEVEL", "debug")]);
        assert!(s.get("RADICAL_LOG_LEVEL").is_some());
        assert_eq!(
            level(&s, "RADICAL", None, LevelFilter::Error).value,
            LevelFilter::Error
        );
        assert_eq!(s.max_level_var(), None);
    }

    #[test]
    fn log_targets_default_root_and_dot() {
        let t = |vars: &[(&str, &str)], root: Option<&Root>| log_targets(&snap(vars), root);
        let d = t(&[], None);
        assert_eq!(
            (d.value.to_string(), d.origin),
            ("stderr".into(), Origin::Default)
        );
        assert_eq!(
            t(&[("PROBE_LOG_TGT", ".")], None).value.to_string(),
            "/run/probe.log"
        );
        let root = Root::new("Radical.AsyncFlow");
        // Without `file` no file is opened, so `.` and `LOG_DIR` are not
        // resolved (the target is replaced by stderr, with a warning).
        #[cfg(feature = "file")]
        {
            assert_eq!(
                t(&[("RADICAL_LOG_TGT", ".")], Some(&root))
                    .value
                    .to_string(),
                "/run/radical.asyncflow.log"
            );
            // The root's own variable beats RADICAL's; LOG_DIR moves relative files.
            let d = t(
                &[
                    ("RADICAL_LOG_TGT", "stdout"),
                    ("RADICAL_ASYNCFLOW_LOG_TGT", "stdout, x.log ,2"),
                    ("RADICAL_DEFAULT_LOG_DIR", "logs"),
                ],
                Some(&root),
            );
            assert_eq!(d.value.to_string(), "stdout,/run/logs/x.log,stderr");
        }
        // The root's own variable beats RADICAL's.
        let d = t(
            &[
                ("RADICAL_LOG_TGT", "stdout"),
                ("RADICAL_ASYNCFLOW_LOG_TGT", "stdout,2"),
            ],
            Some(&root),
        );
        assert_eq!(d.value.to_string(), "stdout,stderr");
        // Without `init_ns`, the program's own variables count (its
        // executable is `probe`), RADICAL's only by default variable.
        let vars = [
            ("MY_APP_LOG_TGT", "stdout"),
            ("RADICAL_LOG_TGT", "stdout"),
            ("RADICAL_DEFAULT_LOG_TGT", "null"),
        ];
        assert_eq!(t(&vars, None).value.to_string(), "null");
        let d = t(&[("PROBE_LOG_TGT", "stdout"), vars[1], vars[2]], None);
        assert_eq!(d.value.to_string(), "stdout");
        assert_eq!(d.origin, Origin::Env("PROBE_LOG_TGT".into()));
        // Garbage falls back with a warning.
        let d = t(&[("PROBE_LOG_TGT", " , ")], None);
        assert_eq!(d.value.to_string(), "stderr");
        assert_eq!(d.warnings().len(), 1);
    }

    #[test]
    fn log_mode_cascade_and_values() {
        use crate::sink::FileMode;
        let m = |vars: &[(&str, &str)], root: Option<&Root>| log_mode(&snap(vars), root);
        let d = m(&[], None);
        assert_eq!((d.value.0, d.origin), (None, Origin::Default));
        for (text, mode) in [
            ("async", Some(FileMode::Async)),
            ("Durable", Some(FileMode::Durable)),
            (" sync-durable ", Some(FileMode::SyncDurable)),
            ("buffered", None),
        ] {
            assert_eq!(m(&[("PROBE_LOG_MODE", text)], None).value.0, mode, "{text}");
        }
        // The root's own variable beats RADICAL's; `buffered` undoes it.
        let root = Root::new("radical.asyncflow");
        let vars = [
            ("RADICAL_LOG_MODE", "durable"),
            ("RADICAL_ASYNCFLOW_LOG_MODE", "buffered"),
        ];
        assert_eq!(m(&vars, Some(&root)).value.0, None);
        let radical = Root::new("radical");
        assert_eq!(m(&vars, Some(&radical)).value.0, Some(FileMode::Durable));
        // Not the program's root: not read.
        assert_eq!(m(&vars, None).value.0, None);
        // Empty shadows PROBE_LOG_MODE and passes to the default variable.
        let d = m(
            &[
                ("PROBE_LOG_MODE", ""),
                ("RADICAL_DEFAULT_LOG_MODE", "async"),
            ],
            None,
        );
        assert_eq!(
            (d.value.0, d.origin),
            (
                Some(FileMode::Async),
                Origin::Env("RADICAL_DEFAULT_LOG_MODE".into())
            )
        );
        // Garbage: one warning naming variable, value and the fallback.
        let d = m(&[("PROBE_LOG_MODE", "fsync")], None);
        assert_eq!(d.value.0, None);
        let w = d.warnings();
        assert_eq!(w.len(), 1);
        let text = w[0].to_string();
        for part in [
            "PROBE_LOG_MODE",
            "\"fsync\"",
            "buffered (the built-in default)",
        ] {
            assert!(text.contains(part), "{text}");
        }
    }

    #[test]
    fn dirs() {
        assert_eq!(profile_dir(&snap(&[]), None).value.to_string(), "/run");
        let s = snap(&[
            ("PROBE_PROFILE_DIR", "prof"),
            ("RADICAL_DEFAULT_PROFILE_DIR", "/d"),
        ]);
        assert_eq!(profile_dir(&s, None).value.to_string(), "/run/prof");
        let s = snap(&[
            ("PROBE_PROFILE_DIR", ""),
            ("RADICAL_DEFAULT_PROFILE_DIR", "/d"),
        ]);
        assert_eq!(profile_dir(&s, None).value.to_string(), "/d");
        let s = snap(&[("RADICAL_DEFAULT_LOG_DIR", "/var/log/app ")]);
        assert_eq!(log_dir(&s).value.to_string(), "/var/log/app");
    }

    #[test]
    fn profile_flag() {
        let s = snap(&[
            ("RADICAL_PROFILE", "TRUE"),
            ("RADICAL_ASYNCFLOW_PROFILE", "off"),
        ]);
        assert!(flag(&s, "RADICAL_PILOT", None, &keys::PROFILE).value);
        assert!(!flag(&s, "RADICAL_ASYNCFLOW_X", None, &keys::PROFILE).value);
        assert!(!flag(&snap(&[]), "RADICAL", None, &keys::PROFILE).value);
        let d = flag(
            &snap(&[("RADICAL_PROFILE", "2")]),
            "RADICAL",
            None,
            &keys::PROFILE,
        );
        assert!(!d.value);
        assert!(d.warnings()[0]
            .to_string()
            .contains("false (the built-in default)"));
    }

    /// Every key: empty, garbage, non-UTF-8, mixed case and whitespace.
    #[test]
    fn every_key_handles_bad_input() {
        use std::os::unix::ffi::OsStringExt;
        let bad = || OsString::from_vec(b"x\xfe".to_vec());
        let with = |var: &str, v: OsString| {
            EnvSnapshot::from_vars([(var.to_string(), v)]).with_process("/run", "probe")
        };
        type Probe = fn(&EnvSnapshot) -> (String, usize);
        let keys: [(&str, Probe, &str, &str, &str); 9] = [
            (
                "RADICAL_LOG_LVL",
                |s| out(level(s, "RADICAL", None, LevelFilter::Error)),
                "error",
                " DeBuG ",
                "debug",
            ),
            (
                "RADICAL_DEBUG",
                |s| out(flag(s, "RADICAL", None, &keys::DEBUG)),
                "false",
                " YeS\t",
                "true",
            ),
            (
                "RADICAL_PROFILE",
                |s| out(flag(s, "RADICAL", None, &keys::PROFILE)),
                "false",
                "On",
                "true",
            ),
            (
                "PROBE_LOG_TGT",
                |s| out(log_targets(s, None)),
                "stderr",
                " StdOut , NULL ",
                "stdout,null",
            ),
            (
                "PROBE_LOG_MODE",
                |s| out(log_mode(s, None)),
                "buffered",
                " DuRaBle ",
                "durable",
            ),
            (
                "PROBE_LOG_FMT",
                |s| out(log_format(s, None)),
                "radical",
                " JsOn\t",
                "json",
            ),
            (
                "PROBE_PROFILE_DIR",
                |s| out(profile_dir(s, None)),
                "/run",
                " p ",
                "/run/p",
            ),
            (
                "PROBE_PROFILE_NAME",
                |s| out(profile_name(s, None)),
                "probe",
                " agent_0 ",
                "agent_0",
            ),
            (
                "RADICAL_DEFAULT_LOG_DIR",
                |s| out(log_dir(s)),
                "/run",
                " /l ",
                "/l",
            ),
        ];
        for (var, probe, default, mixed, parsed) in keys {
            assert_eq!(
                probe(&with(var, "".into())),
                (default.into(), 0),
                "{var} empty"
            );
            assert_eq!(
                probe(&with(var, " ".into())),
                (default.into(), 0),
                "{var} blank"
            );
            assert_eq!(
                probe(&with(var, bad())),
                (default.into(), 1),
                "{var} non-UTF-8"
            );
            assert_eq!(
                probe(&with(var, mixed.into())),
                (parsed.into(), 0),
                "{var} {mixed:?}"
            );
        }
        for (var, garbage) in [
            ("RADICAL_LOG_LVL", "loud"),
            ("RADICAL_LOG_LVL", "-5"),
            ("RADICAL_LOG_LVL", "65"),
            ("RADICAL_DEBUG", "-1"),
            ("RADICAL_DEBUG", "2"),
            ("RADICAL_PROFILE", "100"),
            ("PROBE_LOG_TGT", ","),
            ("PROBE_LOG_MODE", "fast"),
            ("PROBE_LOG_MODE", "sync durable"),
            ("PROBE_LOG_FMT", "xml"),
            ("PROBE_LOG_FMT", "json lines"),
        ] {
            let s = with(var, garbage.into());
            let n = match var {
                "RADICAL_LOG_LVL" => level(&s, "RADICAL", None, LevelFilter::Error)
                    .warnings()
                    .len(),
                "PROBE_LOG_TGT" => log_targets(&s, None).warnings().len(),
                "PROBE_LOG_MODE" => log_mode(&s, None).warnings().len(),
                "PROBE_LOG_FMT" => log_format(&s, None).warnings().len(),
                "RADICAL_DEBUG" => flag(&s, "RADICAL", None, &keys::DEBUG).warnings().len(),
                _ => flag(&s, "RADICAL", None, &keys::PROFILE).warnings().len(),
            };
            assert_eq!(n, 1, "{var}={garbage:?}");
        }
    }

    /// `DEBUG` and `PROFILE` end other tools' variables too: one that no
    /// site read is reported only in the program's family (its own
    /// prefix's first word, or RADICAL's); `LOG_LVL` under any namespace
    /// (a crate logging through a bridge, its value mistyped).
    #[test]
    fn other_tools_debug_and_profile_variables_are_not_reported() {
        let s = snap(&[
            ("CARGO_PROFILE_DEV_DEBUG", "0"),
            ("NEXTEST_PROFILE", "default"),
            ("AWS_PROFILE", "prod"),
            ("PROBE_DBB_DEBUG", "1"),
            ("RADICAL_ASYNCFLO_PROFILE", "1"),
            ("SOMECRATE_LOG_LVL", "verbose"),
        ]);
        let mut vars: Vec<String> = unread_namespace_vars(&s, None)
            .into_iter()
            .map(|w| w.var)
            .collect();
        vars.sort();
        assert_eq!(
            vars,
            [
                "PROBE_DBB_DEBUG",
                "RADICAL_ASYNCFLO_PROFILE",
                "SOMECRATE_LOG_LVL"
            ]
        );
    }

    /// One rule for every key of the table: without `init_ns` the
    /// program's own prefix (its executable, `app`) answers for everything,
    /// for its own sites and a dependency's alike; `RADICAL_` only when the
    /// root is `radical`; and a set variable that is not read gets one
    /// warning saying why.
    #[test]
    fn the_programs_own_prefix_answers_for_every_key() {
        // The product's lookup of each key, for a site in namespace `prefix`.
        let lookup = |key: &str, s: &EnvSnapshot, prefix: &str, root: Option<&Root>| {
            let t = |d: Decided<String>| (d.value, d.origin);
            match key {
                "LOG_LVL" | "VERBOSE" => t(Decided::into_text(level(
                    s,
                    prefix,
                    root,
                    LevelFilter::Error,
                ))),
                "DEBUG" => t(Decided::into_text(flag(s, prefix, root, &keys::DEBUG))),
                "PROFILE" => t(Decided::into_text(flag(s, prefix, root, &keys::PROFILE))),
                "LOG_TGT" => t(Decided::into_text(log_targets(s, root))),
                "LOG_MODE" => t(Decided::into_text(log_mode(s, root))),
                "LOG_FMT" => t(Decided::into_text(log_format(s, root))),
                "LOG_OTLP_ATTRS" => t(otlp_attrs(s, root)),
                "PROFILE_DIR" => t(Decided::into_text(profile_dir(s, root))),
                "PROFILE_NAME" => t(Decided::into_text(profile_name(s, root))),
                #[cfg(feature = "prof")]
                "PROFILE_HOST" => t(Decided::into_text(profile_host(s, root))),
                "LOG_DIR" => t(Decided::into_text(log_dir(s))),
                other => panic!("{other}: add the key's lookup and a value to this test"),
            }
        };
        let value = |key: &str| match key {
            "LOG_LVL" | "VERBOSE" => "debug",
            "DEBUG" | "PROFILE" => "on",
            "LOG_TGT" => "stdout",
            "LOG_MODE" => "durable",
            "LOG_FMT" => "compact",
            "LOG_OTLP_ATTRS" => "code",
            "PROFILE_NAME" => "agent_0",
            "PROFILE_HOST" => "node01",
            _ => "/somewhere",
        };
        let radical = Root::new("radical");
        for key in KEYS.iter().filter(|k| k.scope() != keys::Scope::Exact) {
            let name = key.name();
            // Read only by the `.prof` sink.
            if cfg!(not(feature = "prof")) && name == "PROFILE_HOST" {
                continue;
            }
            let set = |var: &str| {
                EnvSnapshot::from_vars([(var.to_owned(), value(name).into())])
                    .with_process("/run", "app")
            };
            if key.scope() == keys::Scope::DefaultOnly {
                // Read only as RADICAL_DEFAULT_<KEY>; any other spelling is
                // named as ignored.
                let s = set(&format!("RADICAL_DEFAULT_{name}"));
                assert!(matches!(lookup(name, &s, "APP", None).1, Origin::Env(_)));
                assert!(ignored_app_vars(&s, None).is_empty());
                let s = set(&format!("APP_{name}"));
                assert_eq!(lookup(name, &s, "APP", None).1, Origin::Default);
                let w = ignored_app_vars(&s, None);
                assert_eq!(w.len(), 1, "{name}");
                assert!(
                    w[0].to_string().contains("only RADICAL_DEFAULT_"),
                    "{}",
                    w[0]
                );
                continue;
            }
            // The program's own variable decides, at its own site and at a
            // dependency's, and is not reported.
            let own = format!("APP_{name}");
            let s = set(&own);
            for site in ["APP_DB", "CHATTY_DEP"] {
                let (_, origin) = lookup(name, &s, site, None);
                assert_eq!(origin, Origin::Env(own.clone()), "{own} at {site}");
            }
            assert!(ignored_app_vars(&s, None).is_empty(), "{own}");
            assert!(unread_namespace_vars(&s, None).is_empty(), "{own}");
            // RADICAL's: not read without the root `radical`, and said so.
            let theirs = format!("RADICAL_{name}");
            let s = set(&theirs);
            assert_eq!(
                lookup(name, &s, "APP_DB", None).1,
                Origin::Default,
                "{theirs}"
            );
            let warnings = match key.scope() {
                keys::Scope::Process => ignored_app_vars(&s, None),
                _ => unread_namespace_vars(&s, None),
            };
            assert_eq!(warnings.len(), 1, "{theirs}");
            let w = warnings[0].to_string();
            assert!(w.starts_with(&format!("elide: ignoring {theirs}=")), "{w}");
            assert!(
                w.contains("this application's variables start with APP_"),
                "{w}"
            );
            // With the root `radical` it decides, and nothing is reported.
            let s = set(&theirs);
            let (_, origin) = lookup(name, &s, "APP_DB", Some(&radical));
            assert_eq!(origin, Origin::Env(theirs.clone()));
            assert!(ignored_app_vars(&s, Some(&radical)).is_empty(), "{theirs}");
            assert!(
                unread_namespace_vars(&s, Some(&radical)).is_empty(),
                "{theirs}"
            );
        }
    }

    /// `PROFILE_NAME` and `PROFILE_HOST` follow the process root's cascade
    /// like `PROFILE_DIR`; a name with a path separator, or a host that
    /// would break the `sync_abs` message, is refused with one warning
    /// naming the fallback.
    #[cfg(feature = "prof")]
    #[test]
    fn profile_name_and_host() {
        let root = Root::new("radical.pilot");
        let s = snap(&[
            ("RADICAL_PROFILE_NAME", "all"),
            ("RADICAL_PILOT_PROFILE_NAME", "agent_0"),
            ("RADICAL_PROFILE_HOST", "node01.cluster.org"),
        ]);
        let name = profile_name(&s, Some(&root));
        assert_eq!(name.value, "agent_0");
        assert_eq!(
            name.origin,
            Origin::Env("RADICAL_PILOT_PROFILE_NAME".into())
        );
        assert_eq!(profile_name(&s, Some(&Root::new("radical"))).value, "all");
        assert_eq!(profile_name(&snap(&[]), Some(&root)).value, "radical.pilot");
        let host = profile_host(&s, Some(&root));
        assert_eq!(host.value, "node01.cluster.org");
        assert_eq!(host.origin, Origin::Env("RADICAL_PROFILE_HOST".into()));
        assert_eq!(profile_host(&snap(&[]), None).origin, Origin::Default);

        let s = snap(&[("RADICAL_PROFILE_NAME", "../agent")]);
        let w = profile_name(&s, Some(&root)).warnings();
        assert_eq!(w.len(), 1);
        assert!(w[0]
            .to_string()
            .contains("RADICAL_PROFILE_NAME=\"../agent\""));
        assert!(w[0]
            .to_string()
            .contains("radical.pilot (the built-in default)"));
        for bad in ["node:01", "a,b", "node 01", "n\u{7}"] {
            let s = snap(&[("RADICAL_DEFAULT_PROFILE_HOST", bad)]);
            let d = profile_host(&s, None);
            assert_eq!(d.origin, Origin::Default, "{bad:?}");
            assert_eq!(d.warnings().len(), 1, "{bad:?}");
        }
    }

    fn out<T: fmt::Display>(d: Decided<T>) -> (String, usize) {
        (d.value.to_string(), d.warnings().len())
    }
}
