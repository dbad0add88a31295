//! Bridges between elide and the `log` and `tracing` ecosystems, both ways,
//! each behind its cargo feature (`log`, `tracing`).
//!
//! Inbound bridges turn the other facade's records into elide records
//! through the run-time site table ([`emit`](crate::emit)): the record's
//! target is its namespace, so the same `RADICAL_*` cascade,
//! `set_level_for` rules and sinks apply. Outbound sinks hand elide records
//! to the other facade's installed logger or subscriber.
//!
//! Installing both directions cannot loop: while an outbound sink forwards
//! a record, the inbound bridges on that thread ignore what comes back, and
//! an outbound sink whose destination is elide's own inbound bridge forwards
//! nothing.

// What follows serves the bridges of either feature; with one of them off
// some of it is unused.
#![cfg_attr(not(all(feature = "log", feature = "tracing")), allow(dead_code))]

#[cfg(feature = "log")]
#[cfg_attr(docsrs, doc(cfg(feature = "log")))]
pub mod log;
#[cfg(feature = "tracing")]
#[cfg_attr(docsrs, doc(cfg(feature = "tracing")))]
pub mod tracing;

pub(crate) mod host_logger;

use std::borrow::Borrow;
use std::cell::Cell;
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{OnceLock, RwLock};

use crate::record::metadata::{Kind, Metadata};
use crate::runtime::runtime_site::site;
use crate::site::callsite::Callsite;

/// Distinct field names from other facades kept for the life of the
/// process; further ones are recorded under [`OVERFLOW_KEY`].
const MAX_KEYS: usize = 4096;

/// The name a field gets once [`MAX_KEYS`] distinct names were seen.
const OVERFLOW_KEY: &str = "elide.overflow_key";

/// Distinct places (file, line, module path) of bridged records kept for
/// the life of the process, each a leaked copy of its run-time site's
/// metadata; records from further places have none (file `""`, line 0).
/// Call sites are as many as the program's `log`/`tracing` macros, so the
/// cap is reached only by records built at run time with made-up places.
const MAX_PLACES: usize = 8192;

thread_local! {
    /// Set while an outbound sink forwards a record on this thread.
    static FORWARDING: Cell<bool> = const { Cell::new(false) };
}

/// Whether this thread is inside an outbound sink: inbound bridges drop
/// what they receive then (it came from elide in the first place).
pub(crate) fn forwarding() -> bool {
    FORWARDING.with(Cell::get)
}

/// Runs `f` marked as forwarding (see [`forwarding`]).
pub(crate) fn forward<R>(f: impl FnOnce() -> R) -> R {
    struct Reset(bool);
    impl Drop for Reset {
        fn drop(&mut self) {
            FORWARDING.with(|c| c.set(self.0));
        }
    }
    let _reset = Reset(FORWARDING.with(|c| c.replace(true)));
    f()
}

/// A `'static` copy of a field name from another facade (elide's fields
/// are named by `&'static str`). Each distinct name is kept once.
pub(crate) fn intern(name: &str) -> &'static str {
    static NAMES: OnceLock<RwLock<HashMap<&'static str, &'static str>>> = OnceLock::new();
    let names = NAMES.get_or_init(Default::default);
    kept(names, name, MAX_KEYS, || {
        let n: &'static str = Box::leak(name.into());
        (n, n)
    })
    .unwrap_or(OVERFLOW_KEY)
}

/// The value `map` keeps for `key`, made by `make` (the key to keep and
/// the value) on first use, unless the map holds `cap` entries already.
/// Most calls find the entry under the read lock.
fn kept<Q, K, V>(
    map: &RwLock<HashMap<K, V>>,
    key: &Q,
    cap: usize,
    make: impl FnOnce() -> (K, V),
) -> Option<V>
where
    Q: Hash + Eq + ?Sized,
    K: Borrow<Q> + Hash + Eq,
    V: Copy,
{
    if let Some(v) = map.read().unwrap_or_else(|e| e.into_inner()).get(key) {
        return Some(*v);
    }
    let mut map = map.write().unwrap_or_else(|e| e.into_inner());
    if let Some(v) = map.get(key) {
        return Some(*v);
    }
    if map.len() >= cap {
        return None;
    }
    let (k, v) = make();
    map.insert(k, v);
    Some(v)
}

/// A `'static` copy of a short text another facade hands over owned (a
/// target, a file name), kept once like a field name; `None` once
/// [`MAX_KEYS`] distinct texts were seen.
pub(crate) fn intern_text(text: &str) -> Option<&'static str> {
    Some(intern(text)).filter(|t| *t != OVERFLOW_KEY)
}

/// Where another facade says a record was logged: `file!()`, `line!()`
/// and `module_path!()` of its macro, when they are `'static`.
#[derive(Clone, Copy, Default)]
pub(crate) struct Place {
    pub(crate) file: Option<&'static str>,
    pub(crate) line: Option<u32>,
    pub(crate) module_path: Option<&'static str>,
}

/// A place, by the addresses of its texts: the same macro hands over the
/// same `'static` texts every time, so comparing addresses is enough (the
/// same text at two addresses merely gets two entries).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct PlaceKey {
    site: usize,
    file: (usize, usize),
    line: usize,
    module_path: (usize, usize),
}

impl PlaceKey {
    fn of(site: &'static Metadata, place: Place) -> PlaceKey {
        // Plain words (an absent text is (0, 0), an absent line
        // `usize::MAX`), so the per-thread check is a few compares.
        let addr = |s: Option<&'static str>| s.map_or((0, 0), |s| (s.as_ptr() as usize, s.len()));
        PlaceKey {
            site: site as *const Metadata as usize,
            file: addr(place.file),
            line: place.line.map_or(usize::MAX, |l| l as usize),
            module_path: addr(place.module_path),
        }
    }
}

thread_local! {
    /// The places this thread used lately, in slots chosen by line.
    static PLACED: Recent<PlaceKey, &'static Metadata> = const { Recent::new() };
}

/// The metadata a bridged record of run-time site `site` carries: the
/// site's own when `place` says nothing, else a copy with the place (made
/// once per site and place, up to [`MAX_PLACES`]), so every sink and layout
/// reads the file, line and module path as for an elide macro site.
pub(crate) fn placed(site: &'static Metadata, place: Place) -> &'static Metadata {
    if place.file.is_none() && place.module_path.is_none() {
        return site;
    }
    let key = PlaceKey::of(site, place);
    let slot = place.line.unwrap_or(0) as usize;
    let find = || placed_slow(site, place, key);
    PLACED
        .try_with(|r| r.get(key, slot, find))
        .unwrap_or_else(|_| find())
}

#[cold]
#[inline(never)]
fn placed_slow(site: &'static Metadata, place: Place, key: PlaceKey) -> &'static Metadata {
    static PLACES: OnceLock<RwLock<HashMap<PlaceKey, &'static Metadata>>> = OnceLock::new();
    let places = PLACES.get_or_init(Default::default);
    let meta = kept(places, &key, MAX_PLACES, || {
        let file = place.file.unwrap_or("");
        let meta: &'static Metadata = Box::leak(Box::new(Metadata::new(
            Kind::Log,
            site.level(),
            site.target(),
            place.module_path.unwrap_or(site.module_path()),
            file,
            // A line without its file says nothing.
            place.line.filter(|_| !file.is_empty()).unwrap_or(0),
            site.name(),
        )));
        (key, meta)
    });
    meta.unwrap_or(site)
}

/// A run-time site and the metadata its bridged records carry (see
/// [`placed`]).
pub(crate) type SitePlace = (&'static Callsite, &'static Metadata);

/// The run-time site of `target` and its metadata placed at `place`: what
/// a [`Recent`] keeps, found the slow way. Out of line, so the bridges' hot
/// paths keep only the cache check (in line: 1 to 3 more instructions).
#[inline(never)]
pub(crate) fn site_at(target: &str, place: Place) -> SitePlace {
    let cs = site(target);
    (cs, placed(cs.metadata(), place))
}

/// Slots in a thread's [`Recent`].
const RECENT_SLOTS: usize = 8;

/// What a thread found lately for bridged records (their run-time site,
/// their placed metadata), by a key read off the record at a few compares
/// (the addresses of its `'static` texts or metadata), in a few slots
/// chosen by the key: a record from a recent macro finds it without a text
/// compare or a lock.
pub(crate) struct Recent<K, V = SitePlace>([Cell<Option<(K, V)>>; RECENT_SLOTS]);

impl<K: Copy + Eq, V: Copy> Recent<K, V> {
    pub(crate) const fn new() -> Self {
        Recent([const { Cell::new(None) }; RECENT_SLOTS])
    }

    /// The value cached for `key` in slot `slot` (taken modulo the slot
    /// count), else `find`'s, then cached. (A key names one target text
    /// or place, so even a shared fallback, such as the overflow site, is
    /// the right answer for it every time.)
    #[inline]
    pub(crate) fn get(&self, key: K, slot: usize, find: impl FnOnce() -> V) -> V {
        let slot = &self.0[slot % RECENT_SLOTS];
        match slot.get() {
            Some((k, found)) if k == key => found,
            _ => {
                let found = find();
                slot.set(Some((key, found)));
                found
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::level::Level;

    static SITE: Metadata = Metadata::new(Kind::Log, Level::Trace, "bridged", "bridged", "", 0, "");

    fn place(file: Option<&'static str>, line: u32, module: Option<&'static str>) -> Place {
        Place {
            file,
            line: Some(line),
            module_path: module,
        }
    }

    /// A place makes one copy of the site's metadata, found again from any
    /// thread; a record that names no place keeps the site's own, and a
    /// line without its file is not kept.
    #[test]
    fn each_place_gets_one_copy_of_its_sites_metadata() {
        assert!(std::ptr::eq(placed(&SITE, place(None, 4, None)), &SITE));
        let a = placed(&SITE, place(Some("src/a.rs"), 4, Some("dep::a")));
        assert_eq!(
            (a.target(), a.file(), a.line(), a.module_path()),
            ("bridged", "src/a.rs", 4, "dep::a")
        );
        assert!(std::ptr::eq(
            placed(&SITE, place(Some("src/a.rs"), 4, Some("dep::a"))),
            a
        ));
        // Line 12 shares line 4's slot in the thread's list: still right.
        let b = placed(&SITE, place(Some("src/a.rs"), 12, Some("dep::a")));
        assert_eq!(b.line(), 12);
        // Another thread: the same copy, for the same texts.
        let (file, module) = (a.file(), a.module_path());
        let again = std::thread::spawn(move || {
            placed(&SITE, place(Some(file), 4, Some(module))) as *const Metadata as usize
        })
        .join()
        .unwrap();
        assert_eq!(again, a as *const Metadata as usize);
        let module_only = placed(&SITE, place(None, 9, Some("dep::b")));
        assert_eq!(
            (
                module_only.file(),
                module_only.line(),
                module_only.module_path()
            ),
            ("", 0, "dep::b")
        );
    }
}
