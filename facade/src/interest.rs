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
//! Statics owned here: `REBUILD`.

use std::sync::{Arc, Mutex};

use crate::callsite::{self, Callsite};
use crate::config::{self, Config};
use crate::dispatch;
use crate::metadata::{Kind, Metadata};
use crate::namespace::env_prefix;
use crate::sink::Sink;

/// Serialises configuration and sink-set changes with their rewrites.
static REBUILD: Mutex<()> = Mutex::new(());

fn rebuild_lock() -> std::sync::MutexGuard<'static, ()> {
    REBUILD.lock().unwrap_or_else(|e| e.into_inner())
}

/// The byte a site caches under the current configuration and sinks.
fn decide(meta: &Metadata) -> u8 {
    let prefix = env_prefix(meta.target());
    let cfg = config::read();
    match meta.kind() {
        Kind::Log => cfg.level_of(&prefix).min(dispatch::max_level()).as_u8(),
        Kind::Check => cfg.debug_of(&prefix) as u8,
        Kind::Telemetry => (cfg.telemetry_of(&prefix) && dispatch::wants_telemetry()) as u8,
    }
}

/// Registers `cs` (once) and caches its interest. The caller has made sure
/// the process configuration was read (`runtime::resolve`).
pub(crate) fn resolve(cs: &'static Callsite) -> u8 {
    cs.resolve_with(decide)
}

/// Changes the configuration and rewrites every site's cache.
pub(crate) fn reconfigure(change: impl FnOnce(&mut Config)) {
    let _serial = rebuild_lock();
    rewrite(config::apply(change));
}

/// Rewrites every site after a configuration change.
fn rewrite(_: config::Stale) {
    callsite::rewrite_all(decide);
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
        replaced
    };
    if let Some(replaced) = replaced {
        replaced.flush_leavers();
    }
    true
}
