//! The `tracing` callsites of the events [`TracingSink`](super::TracingSink)
//! forwards: one per elide site and level, widened to the names its
//! records carried (see its docs), as one per combination of names would
//! grow without end (3 keys out of 64 names are 262,144 combinations). A
//! site with more than 128 names starts over from one record's names. Past
//! [`MAX_FORWARD_CALLSITES`], a site and level with no callsite yet shares
//! one per level, of target [`OVERFLOW_TARGET`], with the record's target
//! in a `target` field.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use tracing_core::field::FieldSet;
use tracing_core::{callsite, Interest, Kind, Metadata};

use super::to_tracing;
use crate::record::level::Level;
use crate::record::metadata::Metadata as ElideMetadata;
use crate::record::Record;
use crate::runtime::runtime_site::OVERFLOW_TARGET;

/// The most `tracing` callsites [`TracingSink`](super::TracingSink) makes
/// (each about 400 bytes and its list of names, kept for the life of the
/// process); past it, records use their site's callsite and carry the names
/// it lacks in [`OVERFLOW_FIELDS`].
pub const MAX_FORWARD_CALLSITES: usize = 4096;

/// The most names one callsite declares: a site whose records carried more
/// starts a new callsite from the latest record's names, so the memory of
/// the callsites stays within a few megabytes.
const MAX_DECLARED_NAMES: usize = 128;

/// The field that carries, as `name=value` text, the fields of a record
/// whose names its callsite does not declare (only past
/// [`MAX_FORWARD_CALLSITES`]).
pub const OVERFLOW_FIELDS: &str = "elide.overflow_fields";

/// A leaked `tracing` callsite.
pub(super) struct ForwardSite {
    meta: OnceLock<Metadata<'static>>,
}

impl callsite::Callsite for ForwardSite {
    fn set_interest(&self, _: Interest) {}
    fn metadata(&self) -> &Metadata<'_> {
        self.meta.get().expect("set before registration")
    }
}

impl ForwardSite {
    pub(super) fn meta(&'static self) -> &'static Metadata<'static> {
        self.meta.get().expect("set at creation")
    }
}

/// The callsites made so far: the current one per elide site and level,
/// the overflow ones per level, and how many were made in all.
struct Table {
    current: HashMap<(usize, u8), &'static ForwardSite>,
    overflow: [Option<&'static ForwardSite>; 5],
    made: usize,
    cap: usize,
}

impl Table {
    fn new(cap: usize) -> Table {
        Table {
            current: HashMap::new(),
            overflow: [None; 5],
            made: 0,
            cap,
        }
    }

    /// The callsite for a record of `record`'s site and level with fields
    /// named `names`, and whether it was just made (to be registered once
    /// the table is unlocked).
    fn pick(
        &mut self,
        record: &Record<'_>,
        names: &[&'static str],
    ) -> (&'static ForwardSite, bool) {
        let key = (
            record.metadata() as *const _ as usize,
            record.level().as_u8(),
        );
        let now = self.current.get(&key).copied();
        if let Some(site) = now {
            let declares = |n: &&str| site.meta().fields().field(n).is_some();
            if names.iter().all(declares) || self.made >= self.cap {
                return (site, false);
            }
        }
        if self.made >= self.cap {
            let slot = &mut self.overflow[record.level().as_u8() as usize - 1];
            if let Some(site) = *slot {
                return (site, false);
            }
            let names = vec!["message", OVERFLOW_FIELDS, "target"];
            let site = leak_with(record.level(), None, names);
            *slot = Some(site);
            return (site, true);
        }
        // The union of what the site declared and this record's names,
        // in the order first seen.
        let mut union: Vec<&'static str> = match now {
            Some(site) => site.meta().fields().iter().map(|f| f.name()).collect(),
            None => vec!["message", OVERFLOW_FIELDS],
        };
        add_new(&mut union, names);
        if union.len() > MAX_DECLARED_NAMES {
            // A site of very many names starts over from this record's, so
            // no callsite's list grows past the bound.
            union.truncate(2);
            add_new(&mut union, names);
        }
        let site = leak_with(record.level(), Some(record.metadata()), union);
        self.made += 1;
        self.current.insert(key, site);
        (site, true)
    }
}

/// Appends to `union` the `names` it does not hold yet, in order.
fn add_new(union: &mut Vec<&'static str>, names: &[&'static str]) {
    for n in names {
        if !union.contains(n) {
            union.push(n);
        }
    }
}

/// A new callsite of `level` declaring `names`, at `at`'s target and place,
/// or at none under [`OVERFLOW_TARGET`].
fn leak_with(
    level: Level,
    at: Option<&'static ElideMetadata>,
    names: Vec<&'static str>,
) -> &'static ForwardSite {
    let site: &'static ForwardSite = Box::leak(Box::new(ForwardSite {
        meta: OnceLock::new(),
    }));
    let names: &'static [&'static str] = Box::leak(names.into_boxed_slice());
    let file = at.map(|m| m.file()).filter(|f| !f.is_empty());
    let _ = site.meta.set(Metadata::new(
        "elide",
        at.map_or(OVERFLOW_TARGET, |m| m.target()),
        *to_tracing(level),
        file,
        at.map(|m| m.line()).filter(|l| file.is_some() && *l != 0),
        at.map(|m| m.module_path()),
        FieldSet::new(names, callsite::Identifier(site)),
        Kind::EVENT,
    ));
    site
}

fn table() -> std::sync::MutexGuard<'static, Table> {
    static TABLE: OnceLock<Mutex<Table>> = OnceLock::new();
    TABLE
        .get_or_init(|| Mutex::new(Table::new(MAX_FORWARD_CALLSITES)))
        .lock()
        .unwrap_or_else(|e| e.into_inner())
}

/// The callsite a forwarded record with fields named `names` is an event
/// of (see the [module docs](self)).
pub(super) fn forward_site(record: &Record<'_>, names: &[&'static str]) -> &'static ForwardSite {
    let (site, fresh) = table().pick(record, names);
    if fresh {
        // Outside the lock: tracing asks the subscribers about it.
        callsite::register(site);
    }
    site
}

/// How many `tracing` callsites [`TracingSink`](super::TracingSink) has
/// made so far: at most one per distinct field name an elide site's
/// records carried, per site and level, and never more than
/// [`MAX_FORWARD_CALLSITES`] (plus one overflow callsite per level).
pub fn forward_callsites() -> usize {
    let t = table();
    t.made + t.overflow.iter().flatten().count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::metadata::Kind as ElideKind;

    static SITE: crate::record::metadata::Metadata = crate::record::metadata::Metadata::new(
        ElideKind::Log,
        Level::Info,
        "forward_unit",
        "forward_unit",
        "forward.rs",
        7,
        "",
    );

    fn names_of(site: &'static ForwardSite) -> Vec<&'static str> {
        site.meta().fields().iter().map(|f| f.name()).collect()
    }

    /// A site widens its one callsite as new names come, reuses it for any
    /// combination of names it declares, and stops making callsites at the
    /// cap (then a new site and level shares the level's overflow one).
    #[test]
    fn a_site_widens_one_callsite_until_the_cap() {
        let mut t = Table::new(3);
        // Only the record's site and level are read (the names are given).
        let rec = |level| Record::new(&SITE, level, format_args!(""), &[]);
        let r = rec(Level::Info);
        let (a, fresh) = t.pick(&r, &["x", "y"]);
        assert!(fresh);
        assert_eq!(names_of(a), ["message", OVERFLOW_FIELDS, "x", "y"]);
        assert_eq!(a.meta().file(), Some("forward.rs"));
        assert_eq!(a.meta().line(), Some(7));
        // Any combination of declared names: the same callsite.
        for names in [&["y"][..], &["y", "x"], &[]] {
            let (s, fresh) = t.pick(&r, names);
            assert!(std::ptr::eq(s, a) && !fresh);
        }
        let (b, _) = t.pick(&r, &["z", "x"]);
        assert_eq!(names_of(b), ["message", OVERFLOW_FIELDS, "x", "y", "z"]);
        // Another level: its own callsite; the third made reaches the cap.
        let w = rec(Level::Warn);
        let (c, _) = t.pick(&w, &["x"]);
        assert!(!std::ptr::eq(c, b));
        assert_eq!(t.made, 3);
        // Past the cap: the current callsite, even without the new name...
        let (s, fresh) = t.pick(&r, &["q"]);
        assert!(std::ptr::eq(s, b) && !fresh);
        // ...and a level with none yet shares the level's overflow one.
        let e = rec(Level::Error);
        let (o, fresh) = t.pick(&e, &["x"]);
        assert!(fresh);
        assert_eq!(o.meta().target(), OVERFLOW_TARGET);
        assert_eq!(names_of(o), ["message", OVERFLOW_FIELDS, "target"]);
        let (o2, fresh) = t.pick(&e, &["y"]);
        assert!(std::ptr::eq(o, o2) && !fresh);
        assert_eq!(t.made, 3);
    }

    /// A site of very many names does not widen one callsite without end:
    /// past the bound its next callsite starts from the record's names.
    #[test]
    fn a_callsite_declares_a_bounded_number_of_names() {
        let mut t = Table::new(usize::MAX);
        let r = Record::new(&SITE, Level::Debug, format_args!(""), &[]);
        let names: Vec<&'static str> = (0..MAX_DECLARED_NAMES - 2)
            .map(|i| &*Box::leak(format!("n{i}").into_boxed_str()))
            .collect();
        let mut last = None;
        for pair in names.chunks(2) {
            last = Some(t.pick(&r, pair).0);
        }
        let widest = names_of(last.expect("picked"));
        assert_eq!(widest.len(), MAX_DECLARED_NAMES, "{widest:?}");
        let (s, _) = t.pick(&r, &["n0", "fresh"]);
        assert_eq!(names_of(s), ["message", OVERFLOW_FIELDS, "n0", "fresh"]);
    }
}
