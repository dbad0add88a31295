//! Process initialisation, the application root namespace, reloading the
//! environment, and the flush-on-drop guard.
//!
//! The sinks named by `LOG_TGT` are process-wide, so they are looked up for
//! the application root namespace: `<ROOT>_LOG_TGT` down to
//! `RADICAL_LOG_TGT` after [`init_ns`], only `RADICAL_LOG_TGT` without it,
//! then `RADICAL_DEFAULT_LOG_TGT`, then stderr. `LOG_MODE` (same cascade)
//! says how their files are written. They are installed only if no sinks
//! were installed through the API first.

use std::sync::{Arc, Mutex, OnceLock};

use crate::config;
use crate::dispatch;
use crate::env::parse::Target;
use crate::env::{self, EnvSnapshot, Root};
use crate::sink::FileMode;
use crate::sink::Sink;

static INIT: OnceLock<()> = OnceLock::new();

/// The sinks installed from `LOG_TGT`, so a later change of root or a
/// reload can replace exactly those and leave sinks added through the API.
struct EnvSinks {
    /// Whether `LOG_TGT` chose the sinks at all (not if the API came first).
    active: bool,
    targets: Vec<Target>,
    mode: Option<FileMode>,
    sinks: Vec<Arc<dyn Sink>>,
}

static ENV_SINKS: Mutex<EnvSinks> = Mutex::new(EnvSinks {
    active: false,
    targets: Vec::new(),
    mode: None,
    sinks: Vec::new(),
});

fn env_sinks() -> std::sync::MutexGuard<'static, EnvSinks> {
    ENV_SINKS.lock().unwrap_or_else(|e| e.into_inner())
}

/// What `LOG_TGT` and `LOG_MODE` ask for in the current configuration.
struct Wanted {
    targets: Vec<Target>,
    mode: Option<FileMode>,
    /// The variable that decided `LOG_TGT` and its value, for warnings about
    /// files that cannot be opened.
    var: String,
    raw: std::ffi::OsString,
}

impl Wanted {
    fn build(&self) -> Vec<Arc<dyn Sink>> {
        env::sinks::build(&self.targets, self.mode, &self.var, &self.raw)
    }
}

/// `LOG_TGT` and `LOG_MODE` resolved for the current configuration.
fn wanted_targets() -> Wanted {
    let cfg = config::read();
    let mode = env::log_mode(cfg.snapshot(), cfg.root.as_ref());
    env::report(&mode);
    let d = env::log_targets(cfg.snapshot(), cfg.root.as_ref());
    env::report(&d);
    let var = d.origin.to_string();
    let raw = cfg
        .snapshot()
        .get(&var)
        .map(|v| v.to_owned())
        .unwrap_or_default();
    Wanted {
        targets: d.value.0,
        mode: mode.value.0,
        var,
        raw,
    }
}

/// Reads the environment once and installs the `LOG_TGT` sinks if none were
/// installed. Called by `init` and lazily by the first site that resolves.
///
/// This runs inside `callsite::reconfigure` and `interest_for`, so it must
/// not reconfigure (that would deadlock): it only fills the snapshot and
/// installs the first sink set.
pub(crate) fn ensure() {
    INIT.get_or_init(|| {
        crate::exit::flush_at_exit();
        let snap = Arc::new(EnvSnapshot::capture());
        config::write().env.get_or_insert(snap);
        if dispatch::is_installed() {
            return;
        }
        let wanted = wanted_targets();
        let sinks = wanted.build();
        let mut initial = sinks.clone();
        if let Some(prof) = profile_sink() {
            initial.push(prof);
        }
        if dispatch::install_initial(initial) {
            *env_sinks() = EnvSinks {
                active: true,
                targets: wanted.targets,
                mode: wanted.mode,
                sinks,
            };
        }
    });
}

/// The `.prof` sink in `PROFILE_DIR` when some `PROFILE` variable is on,
/// so `RADICAL_PROFILE=1 ./app` writes telemetry without code changes. It
/// is not one of the `LOG_TGT` sinks, so a reload keeps it.
fn profile_sink() -> Option<Arc<dyn Sink>> {
    let cfg = config::read();
    if !cfg.snapshot().any_flag_on("PROFILE") {
        return None;
    }
    let dir = env::profile_dir(cfg.snapshot(), cfg.root.as_ref());
    env::report(&dir);
    let name = env::process_name(cfg.snapshot(), cfg.root.as_ref());
    Some(crate::telemetry::startup_sink(&dir.value.0, &name))
}

/// Re-installs the `LOG_TGT` sinks after the root or the environment
/// changed: the sinks elide installed from `LOG_TGT` are replaced, the others
/// kept. If the application replaced elide's sinks through the API, nothing
/// changes (that includes sinks installed through the API before elide
/// first read the environment). Unless `reopen`, unchanged targets are kept as they are.
fn refresh_env_sinks(reopen: bool) {
    let wanted = wanted_targets();
    let mut owned = env_sinks();
    if !owned.active || (!reopen && owned.targets == wanted.targets && owned.mode == wanted.mode) {
        return;
    }
    let fresh = wanted.build();
    let previous = std::mem::take(&mut owned.sinks);
    let ours = |s: &Arc<dyn Sink>| previous.iter().any(|o| Arc::ptr_eq(o, s));
    dispatch::replace_sinks(|current| {
        let mut next = fresh.clone();
        next.extend(current.into_iter().filter(|s| !ours(s)));
        next
    });
    *owned = EnvSinks {
        active: true,
        targets: wanted.targets,
        mode: wanted.mode,
        sinks: fresh,
    };
}

/// Called by [`set_sinks`](crate::set_sinks): from now on the application
/// owns the sink set, and a reload or a new root leaves it alone.
pub(crate) fn sinks_chosen_by_api() {
    env_sinks().active = false;
}

/// Initialises elide now instead of at the first call site, and returns a
/// guard that flushes every sink when dropped. Keep it alive in `main`.
///
/// ```
/// let _guard = elide::init();
/// elide::error!("written to stderr");
/// ```
#[must_use = "dropping the guard flushes the sinks; keep it until the end of main"]
pub fn init() -> Guard {
    ensure();
    Guard::new()
}

/// Like [`init`], and sets the application root namespace
/// (`"radical.asyncflow"`, spelled like any namespace).
///
/// A site under the root (crate `radical_asyncflow`) is configured by its
/// own namespace as usual. A site outside it (crate `my_app`, or a
/// dependency) tries its own variables first (`MY_APP_LOG_LVL`, `MY_LOG_LVL`)
/// and then the root's (`RADICAL_ASYNCFLOW_LOG_LVL`, `RADICAL_LOG_LVL`), so
/// the root's variables control the whole application while every crate
/// keeps its own. The root also chooses `LOG_TGT` and `PROFILE_DIR`, and the
/// file name of `LOG_TGT=.` (`radical.asyncflow.log`).
///
/// Sites resolved before the call are rewritten.
///
/// ```
/// let _guard = elide::init_ns("radical.asyncflow");
/// elide::info!("controlled by RADICAL_ASYNCFLOW_LOG_LVL, then RADICAL_LOG_LVL");
/// ```
#[must_use = "dropping the guard flushes the sinks; keep it until the end of main"]
pub fn init_ns(root: &str) -> Guard {
    let first = INIT.get().is_none();
    // Set before `ensure` so the first sinks already follow the root.
    config::write().root = Some(Root::new(root));
    crate::namespace::set_root(root);
    ensure();
    if !first {
        refresh_env_sinks(false);
    }
    config::update(|_| {});
    Guard::new()
}

/// Reads the environment again and rebuilds every site's cache, and the
/// sinks that came from `LOG_TGT` (files are reopened, which also suits log
/// rotation). Settings made through the API keep their precedence.
///
/// ```
/// elide::reload_from_env();
/// ```
pub fn reload_from_env() {
    ensure();
    let snap = Arc::new(EnvSnapshot::capture());
    config::update(|c| c.env = Some(snap));
    refresh_env_sinks(true);
}

/// Flushes all sinks when dropped. When the last live guard drops, it also
/// closes the `.prof` sinks installed by
/// [`telemetry::enable`](crate::telemetry::enable) and friends (END line,
/// flush, fsync); a guard taken and dropped in a helper scope while `main`
/// holds another leaves telemetry running.
#[derive(Debug)]
pub struct Guard {
    _private: (),
}

/// Guards alive now.
static LIVE_GUARDS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

impl Guard {
    fn new() -> Guard {
        LIVE_GUARDS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Guard { _private: () }
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        crate::dispatch::flush();
        if LIVE_GUARDS.fetch_sub(1, std::sync::atomic::Ordering::SeqCst) == 1 {
            // `.prof` files get their END line, flush and fsync.
            crate::telemetry::close();
        }
    }
}

/// Whether the installed sinks are (still) the ones `LOG_TGT` chose.
pub(crate) fn sinks_from_env() -> bool {
    env_sinks().active
}
