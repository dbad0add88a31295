//! The process-wide runtime: reading the environment once (lazily, on the
//! first site that resolves, or at [`init`](crate::init)), the
//! flush-on-drop [`Guard`], and the one [`shutdown`] that the guard's drop,
//! the exit handler, the panic hook, a failed check and
//! [`flush`](crate::flush) all share. Besides, each site's path at run time
//! (`route`, `runtime_site`, `site_record`, `sample`) and `describe`, which
//! reports the configuration in force.
//!
//! Shutdown flushes each sink contained on its own, never re-enters a sink
//! from inside one, and in a forked child never waits on a lock a thread of
//! the parent may hold (the built-in sinks `try_lock` there, see `process`).
//!
//! Statics owned here: `INIT`, `SET_UP`, `LIVE_GUARDS`, and the
//! registrations of the exit handler and the panic hook.

mod abort_flush;
mod contained_panics;
pub(crate) mod describe;
pub(crate) mod env_sinks;
#[cfg(feature = "otlp")]
pub(crate) mod otel;
pub(crate) mod route;
pub(crate) mod runtime_site;
pub(crate) mod sample;
pub(crate) mod site_record;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Once, OnceLock};

use crate::config;
use crate::config::env::{self, EnvSnapshot};
use crate::dispatch::interest;
use crate::dispatch::{self, Reach};
use crate::sink::Sink;
use crate::site::callsite::{Callsite, Interest, UNRESOLVED};

static INIT: OnceLock<()> = OnceLock::new();

/// Whether the application set elide up (`init`, `init_ns`, sinks through
/// the API): from then on records no longer go to its own logger.
static SET_UP: AtomicBool = AtomicBool::new(false);

/// Reads the environment once and installs the `LOG_TGT` sinks if no sinks
/// were installed. Called by `init`, by the first site that resolves and
/// by the public calls that read the configuration; never from below this
/// module, and never under the rebuild lock.
pub(crate) fn ensure() {
    INIT.get_or_init(|| {
        crate::os::process::arm();
        register_exit_handler();
        contained_panics::install();
        let set_up = SET_UP.load(Ordering::SeqCst);
        let snap = read_env();
        interest::reconfigure(|c| {
            c.env.get_or_insert(snap);
        });
        let host = match set_up {
            true => None,
            false => crate::host_logger_sink(),
        };
        let level = host.as_ref().map(|(_, l)| *l);
        if env_sinks::install_initial(profile_sink(), host.map(|(s, _)| s)) {
            interest::reconfigure(|c| c.host_level = level);
        }
    });
}

/// The application sets elide up: read the environment if not done yet,
/// and stop sending records to the application's own logger
/// (`host_logger`), the `LOG_TGT` sinks taking its place unless
/// `keep_sinks` (the application installs its own).
pub(crate) fn set_up(keep_sinks: bool) {
    let was_set_up = SET_UP.swap(true, Ordering::SeqCst);
    if !was_set_up && started() {
        // Read before the set-up, `RUST_LOG` was left out: read it now.
        interest::reconfigure(|c| c.snapshot().read_rust_log());
    }
    let was_host = if keep_sinks {
        env_sinks::chosen_by_api()
    } else {
        ensure();
        env_sinks::end_host()
    };
    if was_host {
        interest::reconfigure(|c| c.host_level = None);
    }
}

/// Reads the environment and hands the console its colour variables (the
/// rest is read from the configuration). `RUST_LOG` is left unread until
/// the application sets elide up (it is the application's logger's variable).
pub(crate) fn read_env() -> Arc<EnvSnapshot> {
    use crate::config::env::keys::{CLICOLOR_FORCE, NO_COLOR};
    let snap = match SET_UP.load(Ordering::SeqCst) {
        true => EnvSnapshot::capture(),
        false => EnvSnapshot::capture().without_rust_log(),
    };
    crate::sink::console::set_color_env(snap.get(NO_COLOR.name), snap.get(CLICOLOR_FORCE.name));
    Arc::new(snap)
}

/// Whether the environment was read already.
pub(crate) fn started() -> bool {
    INIT.get().is_some()
}

/// A site's interest (the hot byte), resolving it first (after [`ensure`])
/// if it is still unresolved.
#[inline]
pub(crate) fn current(cs: &'static Callsite) -> u8 {
    match cs.interest() {
        UNRESOLVED => resolve(cs).hot,
        v => v,
    }
}

/// What the configuration and installed sinks allow a site, without test
/// captures, resolving it first if it is still unresolved.
#[inline]
pub(crate) fn configured(cs: &'static Callsite) -> u8 {
    match cs.configured() {
        UNRESOLVED => resolve(cs).configured,
        v => v,
    }
}

/// Resolves a site: the cold path of its first hit. Cold.
#[cold]
#[inline(never)]
pub(crate) fn resolve(cs: &'static Callsite) -> Interest {
    ensure();
    interest::resolve(cs)
}

/// The `.prof` sink in `PROFILE_DIR` when some `PROFILE` variable is on,
/// so `APP_PROFILE=1 ./app` writes telemetry without code changes
/// (`PROFILE_NAME` and `PROFILE_HOST` name the file and its `sync_abs`
/// host). It is not a `LOG_TGT` sink, so a reload keeps it. Without the
/// cargo feature `prof`, a `PROFILE` variable that is on still turns
/// telemetry on, with one warning that no `.prof` file is written. (One
/// function for both builds: a mutation run over either build then mutates
/// code that build compiles.)
fn profile_sink() -> Option<Arc<dyn Sink>> {
    let cfg = config::read();
    let (var, raw) = cfg.snapshot().flag_on(&env::keys::PROFILE)?;
    #[cfg(feature = "prof")]
    {
        let _ = (var, raw);
        let dir = env::profile_dir(cfg.snapshot(), cfg.root().as_deref());
        env::report(&dir);
        let name = env::profile_name(cfg.snapshot(), cfg.root().as_deref());
        env::report(&name);
        let host = env::profile_host_set(cfg.snapshot(), cfg.root().as_deref());
        Some(crate::sink::profiles::startup_sink(
            &dir.value.0,
            &name.value,
            host,
        ))
    }
    #[cfg(not(feature = "prof"))]
    {
        env::warn_once(&env::lookup::Warning {
            var: var.to_owned(),
            raw: raw.to_owned(),
            part: None,
            reason: "a .prof file needs elide's cargo feature `prof`, which this build lacks"
                .to_owned(),
            fallback:
                "telemetry without a .prof file (events reach only sinks added through the API)"
                    .to_owned(),
        });
        None
    }
}

/// Whether this thread is inside a sink: dispatching a record, or an
/// asynchronous sink's writer (which runs sinks all the time). Shutdown
/// flushes nothing from there, and the panic hook explains a panic there
/// as contained.
pub(crate) fn inside_a_sink() -> bool {
    dispatch::in_dispatch() || crate::sink::on_writer_thread()
}

/// Why [`shutdown`] runs; decides how far it reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shutdown {
    /// [`flush`](crate::flush), or a failed check before it panics.
    Flush,
    /// The panic hook: also replaced sets some thread still writes into.
    Panic,
    /// A guard's drop; `last`: no other guard is alive, so `.prof` files
    /// are closed too.
    Guard {
        /// Whether this was the last live guard.
        last: bool,
    },
    /// The exit handler: everything, and `.prof` files are closed.
    Exit,
}

/// Flushes every sink (each contained on its own), and closes `.prof`
/// files when the process or the last guard ends. Skipped entirely on a
/// thread that is inside a sink: a sink is never re-entered from inside
/// itself.
pub(crate) fn shutdown(why: Shutdown) {
    if inside_a_sink() {
        if why == Shutdown::Panic && cfg!(panic = "abort") {
            // The process ends after the hook: flush what can be, from
            // other threads, without calling the panicking sink again.
            abort_flush::flush_before_abort();
        }
        return;
    }
    if why == Shutdown::Exit {
        // Async sinks close rather than flush: see `AsyncSink::flush`.
        crate::os::process::begin_exit();
    }
    let reach = match why {
        Shutdown::Flush | Shutdown::Guard { .. } => Reach::Installed,
        Shutdown::Panic | Shutdown::Exit => Reach::AlsoRetired,
    };
    dispatch::flush_all(reach);
    if matches!(why, Shutdown::Exit | Shutdown::Guard { last: true }) {
        // Every site that ran has looked up its variables by now.
        let cfg = config::read();
        let unread = env::unread_namespace_vars(cfg.snapshot(), cfg.root().as_deref());
        unread.iter().for_each(env::warn_once);
        drop(cfg);
        // `.prof` files get their END line, flush and fsync.
        #[cfg(feature = "prof")]
        crate::sink::profiles::close();
    }
}

/// Registers the exit handler once per process.
///
/// The `init` guard flushes when `main` returns with it alive, but a program
/// that calls `std::process::exit`, or never kept a guard, skips every
/// destructor: buffered files and async queues would lose their tail. On
/// Unix, one `atexit` handler runs [`shutdown`], so what was accepted before
/// `exit` reaches its destination.
#[cfg(unix)]
fn register_exit_handler() {
    extern "C" {
        // C standard library, already linked by std.
        fn atexit(callback: extern "C" fn()) -> std::ffi::c_int;
    }
    extern "C" fn on_exit() {
        // Unwinding into C is undefined: contain any panic.
        crate::contain::contained(|| shutdown(Shutdown::Exit));
    }
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // SAFETY: `on_exit` is a valid `extern "C" fn()` for the life of
        // the process and does not unwind.
        unsafe {
            atexit(on_exit);
        }
    });
}

/// Elsewhere only the guard flushes.
#[cfg(not(unix))]
fn register_exit_handler() {}

/// Installs a panic hook that, after the previous hook has printed the
/// panic, flushes every installed sink, so the records logged before a
/// panic are written even if the process then aborts or exits. Installing
/// it twice has no further effect.
///
/// A panic raised while a record is being emitted (inside a sink, in the
/// `Debug` or `Display` of a value being logged, or on an async writer
/// thread) is contained when panics unwind: nothing is flushed then (a
/// sink is never re-entered from inside itself). Built with
/// `panic = "abort"`, where such a panic ends the process too, the sinks
/// are flushed from other threads, waiting at most 10 seconds: all of
/// them after a panic in a value's `Debug` or `Display` (the sink's own
/// code did not fail), all but the panicking one after a sink's panic (on
/// an async writer thread, the async sink it serves is not waited for).
pub fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            previous(info);
            shutdown(Shutdown::Panic);
        }));
    });
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
static LIVE_GUARDS: AtomicUsize = AtomicUsize::new(0);

impl Guard {
    pub(crate) fn new() -> Guard {
        LIVE_GUARDS.fetch_add(1, Ordering::SeqCst);
        Guard { _private: () }
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        let last = LIVE_GUARDS.fetch_sub(1, Ordering::SeqCst) == 1;
        shutdown(Shutdown::Guard { last });
    }
}
