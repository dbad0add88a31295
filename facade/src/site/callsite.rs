//! The per-site interest cache and the global list of registered sites.
//!
//! Every call site owns a `static Callsite`. Its `interest` byte caches the
//! most verbose level the site may emit under the current configuration
//! (for checks and telemetry: 1 = on, 0 = off). The hot path is a single
//! relaxed load of that byte compared against the site's level; the value
//! [`UNRESOLVED`] is larger than any level, so a site that was never resolved
//! always takes the cold path once, where it registers itself and resolves.
//!
//! A second byte, `configured`, holds what the configuration and the
//! installed sinks alone allow. The two differ only while a test capture is
//! active somewhere in the process (`interest` is then raised so captured
//! threads see every level); the cold path compares against `configured`
//! to decide whether the installed sinks get the record.
//!
//! Registered sites form an intrusive, lock-free, push-only linked list
//! (`registry`, shared with counters).
//! A configuration change bumps a generation counter and rewrites every
//! registered site's byte; a site that resolves concurrently re-checks the
//! generation and retries, so it can never keep a stale value.
//!
//! This module knows no policy: [`Callsite::resolve_with`] and
//! [`rewrite_all`] take the decision (a site's metadata -> its byte) as an
//! argument; `interest` supplies it and serialises the rewrites.
//!
//! Statics owned here: `SITES` (the registry) and `GENERATION`.

use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};

use crate::record::metadata::Metadata;
use crate::site::registry::{Link, Linked, Registry};

/// Interest of a site that has not been resolved yet: above every level, so
/// the hot-path comparison sends it to the cold path.
pub const UNRESOLVED: u8 = u8::MAX;

/// The run-time state of one call site. Created by the macros in a `static`.
#[derive(Debug)]
pub struct Callsite {
    interest: AtomicU8,
    configured: AtomicU8,
    link: Link<Callsite>,
    /// The site's static description. Public for the macros only: a field
    /// of a `static` is a constant, where [`Callsite::metadata`] is a call
    /// in an unoptimised build.
    #[doc(hidden)]
    pub meta: Metadata,
}

static SITES: Registry<Callsite> = Registry::new();
static GENERATION: AtomicUsize = AtomicUsize::new(0);

impl Callsite {
    /// A site in its initial, unresolved state.
    pub const fn new(meta: Metadata) -> Callsite {
        Callsite {
            interest: AtomicU8::new(UNRESOLVED),
            configured: AtomicU8::new(UNRESOLVED),
            link: Link::new(),
            meta,
        }
    }

    /// The cached interest: the hot path's one load.
    #[inline(always)]
    pub fn interest(&self) -> u8 {
        self.interest.load(Ordering::Relaxed)
    }

    /// What the configuration and the installed sinks allow, without any
    /// test capture: the cold path's threshold for the installed sinks.
    #[inline(always)]
    pub(crate) fn configured(&self) -> u8 {
        self.configured.load(Ordering::Relaxed)
    }

    /// The site's static description.
    #[inline]
    pub fn metadata(&'static self) -> &'static Metadata {
        &self.meta
    }

    /// Registers the site (once) and caches `decide(metadata)`, deciding
    /// again if a rewrite ran meanwhile.
    pub(crate) fn resolve_with(&'static self, decide: impl Fn(&Metadata) -> Interest) -> Interest {
        self.register();
        loop {
            let generation = GENERATION.load(Ordering::SeqCst);
            let v = decide(&self.meta);
            self.store(v);
            if GENERATION.load(Ordering::SeqCst) == generation {
                return v;
            }
        }
    }

    fn store(&self, v: Interest) {
        self.configured.store(v.configured, Ordering::SeqCst);
        self.interest.store(v.hot, Ordering::SeqCst);
    }

    fn register(&'static self) {
        SITES.register(self);
    }
}

impl Linked for Callsite {
    fn link(&self) -> &Link<Callsite> {
        &self.link
    }
}

/// The two bytes a site caches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Interest {
    /// What the hot path compares against: `configured`, raised while a
    /// test capture is active somewhere.
    pub(crate) hot: u8,
    /// What the configuration and the installed sinks allow.
    pub(crate) configured: u8,
}

/// Calls `f` for every registered site.
pub(crate) fn for_each(f: impl FnMut(&'static Callsite)) {
    SITES.for_each(f);
}

/// Rewrites every registered site's cached interest with `decide`. The
/// generation is bumped first, so a site resolving concurrently retries.
/// The caller serialises rewrites and makes its change before the call.
pub(crate) fn rewrite_all(decide: impl Fn(&Metadata) -> Interest) {
    GENERATION.fetch_add(1, Ordering::SeqCst);
    for_each(|cs| cs.store(decide(&cs.meta)));
}

/// Number of sites registered so far (sites register on their first hit).
pub(crate) fn registered_count() -> usize {
    let mut n = 0;
    for_each(|_| n += 1);
    n
}
