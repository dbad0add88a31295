//! A site's interest: the configuration combined with the installed sinks
//! into the byte the site caches, and the one lock under which either
//! changes.
//!
//! A log site caches min(level configured for its namespace, most verbose
//! level any sink accepts); a check site 1 if debug mode is on for it; a
//! telemetry site 1 if telemetry is on for it and some sink wants events.
//! Every change of the configuration or of the sink set runs under
//! `REBUILD` and ends by rewriting every registered site, so no change can
//! forget the sites and two changes cannot interleave.
//!
//! While a test capture is active on any thread, the hot byte of every log
//! site is raised to `Trace` (and a telemetry site that is on no longer
//! needs a sink that wants events), so a captured thread sees levels the
//! configuration turns off; the site's `configured` byte keeps the plain
//! decision for the installed sinks. Entering the first capture and leaving
//! the last rewrite every site; with no capture the bytes are equal and the
//! hot path is unchanged.
//!
//! Statics owned here: `REBUILD`.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

use crate::config::{self, Config};
use crate::dispatch;
use crate::record::level::LevelFilter;
use crate::record::metadata::{Kind, Metadata};
use crate::sink::Sink;
use crate::site::callsite::{self, Callsite, Interest};
use crate::site::namespace::env_prefix;

/// Serialises configuration and sink-set changes with their rewrites.
static REBUILD: Mutex<()> = Mutex::new(());

fn rebuild_lock() -> std::sync::MutexGuard<'static, ()> {
    REBUILD.lock().unwrap_or_else(|e| e.into_inner())
}

/// The bytes a site caches under the current configuration, sinks and
/// captures.
fn decide(meta: &Metadata) -> Interest {
    let prefix = env_prefix(meta.target());
    let cfg = config::read();
    let capturing = dispatch::captures_anywhere();
    match meta.kind() {
        Kind::Log => {
            let configured = cfg.level_of(&prefix).min(dispatch::max_level()).as_u8();
            let hot = if capturing {
                LevelFilter::Trace.as_u8()
            } else {
                configured
            };
            Interest { hot, configured }
        }
        Kind::Check => {
            // Captures see records, they do not turn checks on.
            let on = cfg.debug_of(&prefix) as u8;
            Interest {
                hot: on,
                configured: on,
            }
        }
        Kind::Telemetry => {
            let on = cfg.telemetry_of(&prefix);
            let wanted = dispatch::wants_telemetry();
            Interest {
                hot: (on && (wanted || capturing)) as u8,
                configured: (on && wanted) as u8,
            }
        }
    }
}

/// Registers `cs` (once) and caches its interest. The caller has made sure
/// the process configuration was read (`runtime::resolve`).
pub(crate) fn resolve(cs: &'static Callsite) -> Interest {
    cs.resolve_with(decide)
}

/// Functions told after every change of the configuration or the sinks,
/// and when the first test capture in the process starts or the last ends,
/// under the rebuild lock, with [`max_level_with_captures`] (the bridges
/// keep `log`'s max level and `tracing`'s interest cache in step with
/// them). They must not change the configuration.
static ON_CHANGE: Mutex<Vec<fn(LevelFilter)>> = Mutex::new(Vec::new());

/// Registers a change listener (each function once) and calls it with the
/// current answer.
#[cfg_attr(not(any(feature = "log", feature = "tracing")), allow(dead_code))]
pub(crate) fn on_change(f: fn(LevelFilter)) {
    let _serial = rebuild_lock();
    let mut listeners = ON_CHANGE.lock().unwrap_or_else(|e| e.into_inner());
    if !listeners.contains(&f) {
        listeners.push(f);
    }
    drop(listeners);
    f(max_level_with_captures());
}

/// The most verbose level any log site can currently emit: the most
/// verbose level configured anywhere, capped by the sinks.
pub(crate) fn max_level() -> LevelFilter {
    config::read().max_level().min(dispatch::max_level())
}

/// [`max_level`], or `Trace` while a test capture is active anywhere: what
/// another facade's own level filter must let through so a capturing thread
/// sees every level (the bridge then filters per thread, as a raised site
/// does).
pub(crate) fn max_level_with_captures() -> LevelFilter {
    if dispatch::captures_anywhere() {
        LevelFilter::Trace
    } else {
        max_level()
    }
}

/// [`max_level`] as of the last change, for a first check that needs no
/// lock (run-time sites): `Trace` until the configuration is first read.
static MAX_LEVEL: AtomicU8 = AtomicU8::new(LevelFilter::Trace as u8);

/// The most verbose level any log site can emit, as of the last change:
/// one relaxed load.
#[inline]
pub(crate) fn max_level_cached() -> u8 {
    MAX_LEVEL.load(Ordering::Relaxed)
}

fn changed() {
    MAX_LEVEL.store(max_level().as_u8(), Ordering::Relaxed);
    tell_listeners();
}

/// Calls every [`on_change`] listener; the caller holds the rebuild lock.
fn tell_listeners() {
    let listeners = ON_CHANGE.lock().unwrap_or_else(|e| e.into_inner()).clone();
    if listeners.is_empty() {
        return;
    }
    let max = max_level_with_captures();
    for f in listeners {
        f(max);
    }
}

/// Makes `hook` receive what this thread logs; the first capture in the
/// process raises every site and the bridged facades' levels.
pub(crate) fn enter_capture(hook: Arc<dyn Sink>) {
    let _serial = rebuild_lock();
    if dispatch::enter_capture(hook) {
        callsite::rewrite_all(decide);
        tell_listeners();
    }
}

/// Ends one [`enter_capture`] of `hook` on this thread; the last capture in
/// the process lowers every site back to its configured byte, and the
/// bridged facades' levels back to the configuration's.
pub(crate) fn leave_capture(hook: &Arc<dyn Sink>) {
    let _serial = rebuild_lock();
    if dispatch::leave_capture(hook) {
        callsite::rewrite_all(decide);
        tell_listeners();
    }
}

/// Changes the configuration and rewrites every site's cache.
pub(crate) fn reconfigure(change: impl FnOnce(&mut Config)) {
    let _serial = rebuild_lock();
    rewrite(config::apply(change));
}

/// Rewrites every site after a configuration change.
fn rewrite(_: config::Stale) {
    callsite::rewrite_all(decide);
    changed();
}

/// Replaces the sink set with `choose(current sinks)` (`None` as the
/// argument: no set was ever installed; `None` as the answer: keep the
/// current one), read and stored under the rebuild lock so a concurrent
/// change cannot be lost, then rewrites every site and flushes the sinks
/// that left the set. Whether a set was installed.
pub(crate) fn replace_sinks(
    choose: impl FnOnce(Option<Vec<Arc<dyn Sink>>>) -> Option<Vec<Arc<dyn Sink>>>,
) -> bool {
    let replaced = {
        let _serial = rebuild_lock();
        let Some(next) = choose(dispatch::installed()) else {
            return false;
        };
        let replaced = dispatch::install(next);
        callsite::rewrite_all(decide);
        changed();
        replaced
    };
    if let Some(replaced) = replaced {
        replaced.flush_leavers();
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::level::Level;

    /// Raising sites for a capture sends every hit of a disabled level to
    /// the cold path; without a capture a log site caches exactly what the
    /// configuration and the sinks allow, so a disabled level stays one
    /// branch.
    #[test]
    fn without_a_capture_log_sites_are_not_raised() {
        let _one = dispatch::SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        static META: Metadata = Metadata::new(
            Kind::Log,
            Level::Trace,
            "interest_unit",
            "interest_unit",
            file!(),
            line!(),
            "",
        );
        assert!(!dispatch::captures_anywhere());
        let i = decide(&META);
        assert_eq!(i.hot, i.configured);
    }
}
