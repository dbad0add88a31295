//! Sites whose target is known only at run time: the public run-time emit
//! API ([`emit`], [`enabled_for`]), log macros with a computed `target:`, and
//! the `log`/`tracing` bridges.
//!
//! Each distinct target gets one leaked [`Callsite`], registered like a macro
//! site, so a configuration change rewrites its cached interest and a record
//! checks it with one load. Finding a target's site is a lookup: first in a
//! small per-thread list of the targets it used last (compared by content),
//! then in a global map under a read lock. The cascade is walked once per
//! target and configuration, never per record.
//!
//! A site of this kind has no file or line of its own (its `Metadata` says
//! `""` and 0) and its `module_path` is the target; the bridges give their
//! records a copy with the place `log` or `tracing` handed over.

use std::cell::Cell;
use std::collections::HashMap;
use std::fmt;
use std::sync::{OnceLock, RwLock};

use crate::dispatch::{self, Route};
use crate::record::level::Level;
use crate::record::metadata::{Kind, Metadata};
use crate::record::value::{Field, Value};
use crate::record::Record;
use crate::runtime::route;
use crate::site::callsite::Callsite;

/// Distinct run-time targets kept before new ones share one overflow site
/// (each costs a leaked `Callsite` and the target's text, about 150 bytes).
pub(crate) const MAX_TARGETS: usize = 4096;

/// The target of the shared site that targets beyond [`MAX_TARGETS`] use;
/// their own target then travels as a `target` field.
pub(crate) const OVERFLOW_TARGET: &str = "elide::overflow";

const RECENT: usize = 4;

thread_local! {
    /// The targets this thread used last, most recent first.
    static RECENT_SITES: [Cell<Option<&'static Callsite>>; RECENT] =
        const { [const { Cell::new(None) }; RECENT] };
}

fn table() -> &'static RwLock<HashMap<&'static str, &'static Callsite>> {
    static TABLE: OnceLock<RwLock<HashMap<&'static str, &'static Callsite>>> = OnceLock::new();
    TABLE.get_or_init(Default::default)
}

fn leak_site(target: &'static str) -> &'static Callsite {
    Box::leak(Box::new(Callsite::new(Metadata::new(
        Kind::Log,
        Level::Trace,
        target,
        target,
        "",
        0,
        "",
    ))))
}

fn overflow_site() -> &'static Callsite {
    static SITE: OnceLock<&'static Callsite> = OnceLock::new();
    SITE.get_or_init(|| leak_site(OVERFLOW_TARGET))
}

/// The site of a run-time target, created on first use. Not public API; the
/// macros call it for a `target:` that is not a constant, after
/// [`above_every_level`](crate::runtime::route::above_every_level) said the level
/// may be on somewhere (else the site does nothing more: the target is not
/// even evaluated).
#[doc(hidden)]
#[inline]
pub fn site(target: &str) -> &'static Callsite {
    let hit = RECENT_SITES.with(|recent| {
        for (i, slot) in recent.iter().enumerate() {
            if let Some(cs) = slot.get() {
                if cs.metadata().target() == target {
                    if i != 0 {
                        // Move to the front, so a steady target is found first.
                        push_front(&recent[..=i], cs);
                    }
                    return Some(cs);
                }
            }
        }
        None
    });
    match hit {
        Some(cs) => cs,
        None => site_slow(target),
    }
}

/// Whether `meta` (a run-time site's metadata, or a placed copy of it) is
/// the shared overflow site's: its target text is the overflow site's own,
/// compared by address (a site for the same text typed by a user has its
/// own copy of it).
fn is_overflow(meta: &Metadata) -> bool {
    let t = meta.target();
    t.len() == OVERFLOW_TARGET.len()
        && std::ptr::eq(t.as_ptr(), overflow_site().metadata().target().as_ptr())
}

/// Puts `cs` first in `slots`, shifting the others back (the last falls
/// off).
fn push_front(slots: &[Cell<Option<&'static Callsite>>], cs: &'static Callsite) {
    let mut carry = Some(cs);
    for slot in slots {
        carry = slot.replace(carry);
    }
}

#[cold]
#[inline(never)]
fn site_slow(target: &str) -> &'static Callsite {
    let cs = lookup_or_insert(target);
    if cs.metadata().target() == target {
        RECENT_SITES.with(|recent| push_front(recent, cs));
    }
    cs
}

fn lookup_or_insert(target: &str) -> &'static Callsite {
    let t = table();
    if let Some(cs) = t.read().unwrap_or_else(|e| e.into_inner()).get(target) {
        return cs;
    }
    let mut map = t.write().unwrap_or_else(|e| e.into_inner());
    if let Some(cs) = map.get(target) {
        return cs;
    }
    if map.len() >= MAX_TARGETS {
        return overflow_site();
    }
    let key: &'static str = Box::leak(target.into());
    let cs = leak_site(key);
    map.insert(key, cs);
    cs
}

/// Whether a record at `level` for `target` would be emitted: the level
/// configured for the target's namespace (the same cascade and
/// `set_level_for` rules as a macro site) and the sinks installed.
///
/// Costs one lookup of the target (see [`emit`]) and one load.
///
/// ```
/// elide::set_level_for("bridged::db", elide::LevelFilter::Debug);
/// elide::set_sinks([std::sync::Arc::new(elide::sink::MemorySink::new()) as _]);
/// assert!(elide::enabled_for("bridged::db::pool", elide::Level::Debug));
/// assert!(!elide::enabled_for("bridged::db::pool", elide::Level::Trace));
/// ```
pub fn enabled_for(target: &str, level: Level) -> bool {
    !route::above_every_namespace(level) && route::of_target_site(site(target), level).is_some()
}

/// Emits a record whose target, level, fields and message are known only at
/// run time, through the same namespace configuration and sinks as a macro
/// site. For bridges and front-ends: a macro site is cheaper.
///
/// The target selects the configuration like a macro site's `target:`
/// (`RADICAL_*` cascade, [`set_level_for`](crate::set_level_for), ...). Its
/// decision is cached per target, so a record that is off costs a lookup
/// (a short per-thread list compared by content, then a map under a read
/// lock) and one load. A level above what any namespace and sink allows is
/// turned away before the lookup, inlined into the caller: one load and
/// a compare (and, while some thread is in a test capture, which wants
/// every level, a thread-local read): 9 instructions in the hot-loop
/// benchmark, where the same check in a macro site with a run-time target
/// (`debug!(target: t, ..)`) costs 7, since a macro evaluates neither the
/// target nor the message until the check passes; prefer that in hot code.
/// Each distinct target is kept for the life of the process (up to 4096
/// of them, about 150 bytes each; further ones share one site whose target
/// is `elide::overflow` and carry their own as a `target` field).
///
/// The record's file and line are empty; its module path is the target.
///
/// ```
/// use std::sync::Arc;
/// use elide::{sink::MemorySink, Level, Value};
///
/// let mem = Arc::new(MemorySink::new());
/// elide::set_sinks([mem.clone() as Arc<dyn elide::Sink>]);
/// elide::set_level(elide::LevelFilter::Info);
///
/// let target = String::from("plugin.loader");
/// elide::emit(&target, Level::Info, &[("count", Value::U64(3))], format_args!("loaded {} plugins", 3));
/// elide::emit(&target, Level::Debug, &[], format_args!("not emitted"));
/// assert_eq!(mem.messages(), ["loaded 3 plugins"]);
/// ```
#[inline]
pub fn emit(target: &str, level: Level, fields: &[Field<'_>], args: fmt::Arguments<'_>) {
    // Above every namespace's level: no lookup at all. Inlined into the
    // caller, so an off record costs the check and no call.
    if route::above_every_namespace(level) {
        return;
    }
    emit_on(target, level, fields, args)
}

/// [`emit`] past its level check: the lookup, out of the caller's line.
#[inline(never)]
fn emit_on(target: &str, level: Level, fields: &[Field<'_>], args: fmt::Arguments<'_>) {
    let cs = site(target);
    if let Some(to) = route::of_target_site(cs, level) {
        emit_at(cs.metadata(), to, target, level, fields, args);
    }
}

/// Builds and dispatches the record of a run-time site that is on. `meta`
/// is its site's metadata, or (from a bridge) a copy of it with the place
/// the other facade gave. In line in its few callers (`emit` past its
/// check, the bridges), each one shared function.
#[inline(always)]
pub(crate) fn emit_at(
    meta: &'static Metadata,
    route: Route,
    target: &str,
    level: Level,
    fields: &[Field<'_>],
    args: fmt::Arguments<'_>,
) {
    // Every site but the overflow one is its target's own (`site` found it
    // by that text), so only the overflow site compares the text. Every
    // site here is a log site (`leak_site`), so `dispatch_log` serves.
    let record = Record::new(meta, level, args, fields);
    if !is_overflow(meta) || meta.target() == target {
        dispatch::dispatch_log(route, &record);
    } else {
        emit_overflow(route, target, &record);
    }
}

/// An overflow target's record: it says which target it was.
#[cold]
#[inline(never)]
fn emit_overflow(route: Route, target: &str, record: &Record<'_>) {
    let mut all = Vec::with_capacity(record.fields().len() + 1);
    all.push(("target", Value::Str(target)));
    all.extend_from_slice(record.fields());
    let message = *record.args();
    let with_target = Record::of_message(record.metadata(), record.level(), message, &all);
    dispatch::dispatch_to(route, &with_target);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The targets in this thread's list, most recent first.
    fn recent() -> Vec<&'static str> {
        RECENT_SITES.with(|r| {
            r.iter()
                .filter_map(|s| s.get().map(|cs| cs.metadata().target()))
                .collect()
        })
    }

    /// A target is looked up under the global lock once per thread, then
    /// found in the thread's own list, which keeps the last four used with
    /// the latest first (so a steady target is found at the first compare).
    #[test]
    fn a_thread_keeps_its_last_targets_latest_first() {
        // A thread of its own: the list starts empty.
        std::thread::spawn(|| {
            let names: Vec<String> = (0..5).map(|i| format!("recent_test::t{i}")).collect();
            let a = site(&names[0]);
            assert_eq!(recent(), [names[0].as_str()]);
            let b = site(&names[1]);
            assert_eq!(recent(), [names[1].as_str(), names[0].as_str()]);
            // Found in the list: the same site, moved to the front.
            assert!(std::ptr::eq(site(&names[0]), a));
            assert_eq!(recent(), [names[0].as_str(), names[1].as_str()]);
            for n in &names[2..] {
                site(n);
            }
            // Four kept; the least recent (t1) fell off, and is found again
            // in the global map, as the same site.
            assert_eq!(
                recent(),
                [&names[4], &names[3], &names[2], &names[0]].map(String::as_str)
            );
            assert!(std::ptr::eq(site(&names[1]), b));
            assert_eq!(recent()[0], names[1]);
        })
        .join()
        .unwrap();
    }
}
