//! The sinks `LOG_TGT` chose: built from the targets (the one impure step of
//! the environment: files are opened here, written as `LOG_MODE` says, in
//! the line format `LOG_FMT` names), installed at start-up unless the API
//! installed sinks first, and replaced on a new root or a reload, leaving
//! sinks added through the API alone.
//!
//! Statics owned here: `ENV_SINKS`.

use std::ffi::OsString;
use std::sync::{Arc, Mutex, MutexGuard};

use crate::config;
use crate::config::env::lookup::{Decided, Warning};
#[cfg(feature = "file")]
use crate::config::env::parse::LogMode;
use crate::config::env::parse::{LogFormat, Target};
use crate::config::env::{self, EnvSnapshot};
use crate::dispatch::interest;
use crate::format::Format;
use crate::sink::{ConsoleSink, FileMode, Sink};
#[cfg(feature = "file")]
use crate::{record::level::LevelFilter, sink::FileSink};

/// The sinks installed from `LOG_TGT`, so a later change of root or a
/// reload can replace exactly those and leave sinks added through the API.
struct EnvSinks {
    /// Whether `LOG_TGT` chose the sinks at all (not if the API came first).
    active: bool,
    /// What `sinks` were built from.
    chosen: Option<Wanted>,
    sinks: Vec<Arc<dyn Sink>>,
    /// Whether `sinks` is the application's own logger (`host_logger`)
    /// standing in for `LOG_TGT` until the application sets elide up.
    host: bool,
}

static ENV_SINKS: Mutex<EnvSinks> = Mutex::new(EnvSinks {
    active: false,
    chosen: None,
    sinks: Vec::new(),
    host: false,
});

fn env_sinks() -> MutexGuard<'static, EnvSinks> {
    ENV_SINKS.lock().unwrap_or_else(|e| e.into_inner())
}

/// What `LOG_TGT`, `LOG_MODE` and `LOG_FMT` ask for in the current
/// configuration.
struct Wanted {
    targets: Vec<Target>,
    mode: Option<FileMode>,
    format: Format,
    /// The variable that decided `LOG_TGT` and its value, for warnings about
    /// files that cannot be opened.
    var: String,
    raw: OsString,
    /// The root namespace: an OTLP target's default `service.name`.
    root: Option<String>,
}

impl Wanted {
    /// `LOG_TGT` and `LOG_MODE` resolved for the current configuration.
    fn now() -> Wanted {
        let cfg = config::read();
        let (snap, root) = (cfg.snapshot(), cfg.root());
        let root = root.as_deref();
        // The root or the snapshot may have changed: say which variables of
        // the application's keys it leaves unread.
        let ignored = env::ignored_app_vars(snap, root);
        ignored.iter().for_each(env::warn_once);
        // `LOG_MODE` says how files are written: without `file` there are
        // none (a file target gets its own warning in `build`).
        #[cfg(feature = "file")]
        let mode = mode_available(snap, env::log_mode(snap, root));
        #[cfg(not(feature = "file"))]
        let mode = None;
        let format = format_available(snap, env::log_format(snap, root));
        let d = env::log_targets(snap, root);
        env::report(&d);
        let var = d.origin.to_string();
        let raw = snap.get(&var).unwrap_or_default().to_owned();
        Wanted {
            targets: d.value.0,
            mode,
            format,
            var,
            raw,
            root: root.map(|r| r.name.clone()),
        }
    }

    fn owned(self, sinks: Vec<Arc<dyn Sink>>, host: bool) -> EnvSinks {
        EnvSinks {
            active: true,
            chosen: Some(self),
            sinks,
            host,
        }
    }
}

/// Installs the `LOG_TGT` sinks, or `host` (the application's logger) in
/// their place, and `extra` (the start-up `.prof` sink) if no sink set was
/// installed yet. Returns whether `host` was installed.
pub(super) fn install_initial(extra: Option<Arc<dyn Sink>>, host: Option<Arc<dyn Sink>>) -> bool {
    let wanted = Wanted::now();
    let is_host = host.is_some();
    let mut built = None;
    let installed = interest::replace_sinks(|current| {
        if current.is_some() {
            return None;
        }
        let sinks = match host {
            Some(h) => vec![h],
            None => build(&wanted),
        };
        built = Some(sinks.clone());
        Some(sinks.into_iter().chain(extra).collect())
    });
    if let (true, Some(sinks)) = (installed, built) {
        *env_sinks() = wanted.owned(sinks, is_host);
    }
    installed && is_host
}

/// Replaces the application's logger standing in for `LOG_TGT` by the
/// `LOG_TGT` sinks (the application set elide up). Returns whether it was
/// there.
pub(crate) fn end_host() -> bool {
    let was = std::mem::take(&mut env_sinks().host);
    if was {
        refresh(true);
    }
    was
}

/// Re-installs the `LOG_TGT` sinks after the root or the environment
/// changed: the sinks elide installed from `LOG_TGT` are replaced, the others
/// kept. If the application replaced elide's sinks through the API, nothing
/// changes (that includes sinks installed through the API before elide
/// first read the environment). Unless `reopen`, unchanged targets are kept
/// as they are.
pub(crate) fn refresh(reopen: bool) {
    let wanted = Wanted::now();
    let mut owned = env_sinks();
    let same = owned.chosen.as_ref().is_some_and(|c| {
        (&c.targets, c.mode, c.format) == (&wanted.targets, wanted.mode, wanted.format)
    });
    // The application's logger stays until the application sets elide up.
    if !owned.active || owned.host || (!reopen && same) {
        return;
    }
    let fresh = build(&wanted);
    let previous = std::mem::take(&mut owned.sinks);
    let ours = |s: &Arc<dyn Sink>| previous.iter().any(|o| Arc::ptr_eq(o, s));
    interest::replace_sinks(|current| {
        let mut next = fresh.clone();
        next.extend(current.unwrap_or_default().into_iter().filter(|s| !ours(s)));
        Some(next)
    });
    *owned = wanted.owned(fresh, false);
}

/// From now on the application owns the sink set, and a reload or a new
/// root leaves it alone. Returns whether the application's own logger
/// stood in for `LOG_TGT` until now.
pub(crate) fn chosen_by_api() -> bool {
    let mut owned = env_sinks();
    owned.active = false;
    std::mem::take(&mut owned.host)
}

/// Whether the installed sinks are (still) the ones `LOG_TGT` chose.
pub(crate) fn from_env() -> bool {
    env_sinks().active
}

/// The line format this build can write for `d`'s: without the cargo
/// feature `json` (the only format behind a feature), `json` falls back to
/// the RADICAL layout, with one warning.
fn format_available(snap: &EnvSnapshot, d: Decided<LogFormat>) -> Format {
    env::report(&d);
    if d.value.0.is_available() {
        return d.value.0;
    }
    let reason = "the json line format needs elide's cargo feature `json`, which this build lacks";
    lacking(snap, &d, reason.into(), Format::Radical.as_str().into());
    Format::Radical
}

/// The file mode this build can open for `d`'s: without the cargo feature
/// `async`, `async` falls back to buffered synchronous writes and `durable`
/// to `sync-durable` (the synchronous mode with the same promise), with one
/// warning.
#[cfg(feature = "file")]
fn mode_available(snap: &EnvSnapshot, d: Decided<LogMode>) -> Option<FileMode> {
    env::report(&d);
    let wanted = match d.value.0 {
        Some(m) if !m.is_available() => m,
        other => return other,
    };
    let fallback = wanted.synchronous();
    let reason = format!(
        "log mode {} needs elide's cargo feature `async`, which this build lacks",
        wanted.as_str()
    );
    let used = format!("{} (synchronous file writes)", LogMode(fallback));
    lacking(snap, &d, reason, used);
    fallback
}

/// One warning that the variable that decided `d` asks for something this
/// build lacks (`reason`), and `fallback` is used instead.
fn lacking<T>(snap: &EnvSnapshot, d: &Decided<T>, reason: String, fallback: String) {
    let var = d.origin.to_string();
    let raw = snap.get(&var).unwrap_or_default();
    env::warn_once(&Warning::new(&var, raw, reason, fallback));
}

/// One sink per target `w` wants, writing lines in its format. `null` adds
/// none. Files are a buffered [`FileSink`] without a mode, else opened in
/// that [`FileMode`]. A file that cannot be opened is replaced by stderr
/// and reported once, naming the variable, its value, exactly the targets
/// replaced and the targets still used. `otlp` targets come last.
fn build(w: &Wanted) -> Vec<Arc<dyn Sink>> {
    let (targets, mode, format) = (&w.targets, w.mode, w.format);
    let mut sinks: Vec<Arc<dyn Sink>> = Vec::new();
    // Each target that cannot be used, and why.
    let mut failed: Vec<(&Target, String)> = Vec::new();
    let mut stderr = false;
    let mut add_stderr = |sinks: &mut Vec<Arc<dyn Sink>>| {
        if !std::mem::replace(&mut stderr, true) {
            sinks.push(Arc::new(ConsoleSink::stderr().with_format(format)));
        }
    };
    for t in targets {
        let before = failed.len();
        match t {
            Target::Stdout => sinks.push(Arc::new(ConsoleSink::stdout().with_format(format))),
            Target::Stderr => add_stderr(&mut sinks),
            Target::Null | Target::Otlp(_) => {}
            #[cfg(feature = "file")]
            Target::File(path) => match open(path, mode, format) {
                Ok(f) => sinks.push(f),
                Err(e) => failed.push((t, format!("cannot open {}: {e}", path.display()))),
            },
            #[cfg(feature = "file")]
            Target::Refused { why, .. } => failed.push((t, why.clone())),
            // Without `file` no file is written, in any mode (the one
            // warning below names the missing feature).
            #[cfg(not(feature = "file"))]
            Target::File(_) | Target::Refused { .. } => failed.push((t, String::new())),
        }
        // A target that cannot be used is replaced by stderr.
        if failed.len() > before {
            add_stderr(&mut sinks);
        }
    }
    #[cfg(not(feature = "file"))]
    let _ = mode;
    if !failed.is_empty() {
        let why: Vec<String> = failed.iter().map(|(_, why)| why.clone()).collect();
        let (reason, whole) = match listed(&why, "; ") {
            _ if !cfg!(feature = "file") => (
                "a file target needs elide's cargo feature `file`, which this build lacks".into(),
                "stderr for the file targets",
            ),
            (1, list) => (list, "stderr for those targets"),
            (n, list) => (
                format!("cannot use {n} targets: {list}"),
                "stderr for those targets",
            ),
        };
        let replaced: Vec<&Target> = failed.iter().map(|(t, _)| *t).collect();
        warn_replaced(targets, &replaced, whole, &w.var, &w.raw, reason);
    }
    for t in targets {
        if let Target::Otlp(endpoint) = t {
            let url = endpoint.as_ref().map(|e| format!("http://{e}"));
            sinks.extend(otlp(url.as_deref(), w.root.as_deref(), &w.var));
        }
    }
    sinks
}

/// One warning that the `replaced` of `targets` (the `LOG_TGT` list in
/// `var`, holding `raw`) were replaced by stderr. When only some were, it
/// names exactly those as ignored and the others as still used, so it does
/// not read as if the whole value were ignored; when all were, the
/// fallback is `whole`.
fn warn_replaced(
    targets: &[Target],
    replaced: &[&Target],
    whole: &str,
    var: &str,
    raw: &OsString,
    reason: String,
) {
    let kept: Vec<String> = targets
        .iter()
        .filter(|t| !replaced.contains(t) && **t != Target::Stderr)
        .map(Target::to_string)
        .collect();
    let (part, fallback) = if targets.iter().all(|t| replaced.contains(&t)) {
        (None, whole.to_owned())
    } else {
        let names: Vec<String> = replaced.iter().map(|t| t.to_string()).collect();
        let (n, list) = listed(&names, ", ");
        let (noun, place) = if n == 1 {
            ("target", "its")
        } else {
            ("targets", "their")
        };
        let mut fallback = format!("stderr in {place} place");
        if !kept.is_empty() {
            fallback.push_str(&format!(", and {}", kept.join(", ")));
        }
        (Some(format!("the {noun} {list}")), fallback)
    };
    env::warn_once(&Warning {
        part,
        ..Warning::new(var, raw, reason, fallback)
    });
}

/// How many `items` there are, and the first few (each clipped) joined by
/// `sep`, then how many more.
fn listed(items: &[String], sep: &str) -> (usize, String) {
    const SHOWN: usize = 3;
    let shown: Vec<_> = items.iter().take(SHOWN).map(|f| env::clip(f)).collect();
    let mut list = shown.join(sep);
    if items.len() > SHOWN {
        list.push_str(&format!("{sep}and {} more", items.len() - SHOWN));
    }
    (items.len(), list)
}

/// The OTLP exporter of an `otlp` target (`OTEL_*` settings; the root
/// namespace as default `service.name`), or a warning when elide was built
/// without the `otlp` feature or the endpoint is malformed. (One function
/// for both builds, so a mutation run mutates code its build compiles.)
fn otlp(endpoint: Option<&str>, root: Option<&str>, var: &str) -> Option<Arc<dyn Sink>> {
    #[cfg(feature = "otlp")]
    {
        let mut b = super::otel::builder(endpoint);
        if let Some(root) = root {
            b = b.default_service_name(root);
        }
        let s = b.build_or_warn(if endpoint.is_some() {
            var
        } else {
            env::keys::OTEL_ENDPOINT.name
        })?;
        Some(Arc::new(s))
    }
    #[cfg(not(feature = "otlp"))]
    {
        let _ = (endpoint, root);
        let _ = crate::os::process::write_stderr(
            format!("elide: {var} names an otlp target, but elide was built without its `otlp` feature; the target is ignored\n").as_bytes(),
        );
        None
    }
}

#[cfg(feature = "file")]
fn open(
    path: &std::path::Path,
    mode: Option<FileMode>,
    format: Format,
) -> std::io::Result<Arc<dyn Sink>> {
    match mode {
        None => Ok(Arc::new(FileSink::open(path)?.with_format(format))),
        Some(mode) => mode.open(path, format, LevelFilter::Trace),
    }
}
