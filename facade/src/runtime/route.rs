//! The route of a record: whether a site's record is built at all and, if
//! so, where [`dispatch`](crate::dispatch) delivers it. Every site kind asks
//! here (macro sites through the entry points in `__private`, sites with a
//! run-time target, the `log` and `tracing` bridges), so the decision is
//! written once.
//!
//! A site's [`Callsite`] caches two bytes: its *interest* (the hot byte,
//! raised to every level while a test capture is active on any thread) and
//! what the *configuration* and the installed sinks allow it. A record at
//! level `needed` goes
//! - nowhere when `needed` is above the interest (the hot check: one load,
//!   a compare, a branch);
//! - to the installed sinks and this thread's captures ([`Route::All`])
//!   when the configuration allows it;
//! - to this thread's captures only ([`Route::CapturesOnly`]) when just a
//!   capture raised the site (the interest alone must not send a record to
//!   the installed sinks);
//! - nowhere otherwise.
//!
//! An unresolved site (both bytes [`UNRESOLVED`](crate::site::callsite::UNRESOLVED))
//! passes the hot check and is resolved on the way, once.
//!
//! Which sinks of the route take the record (a sink's level, its telemetry
//! switch) is delivery's business, not the route's.

use crate::dispatch::{self, Route};
use crate::record::level::Level;
use crate::site::callsite::Callsite;

/// Where the record of a site at level `needed` goes, if anywhere: the hot
/// check, then, on a hit, [`routed`]. Inlined, not generic: a site with a
/// run-time target calls its own `#[cold]`, non-inlined closure directly
/// with the route (a common site asks [`hit`] instead).
#[inline(always)]
pub fn route(cs: &'static Callsite, needed: u8) -> Option<Route> {
    if needed > cs.interest() {
        return None;
    }
    routed(cs, needed)
}

/// The route of a site whose hot check passed. `#[inline]`, not
/// `#[inline(always)]`: an optimised build inlines it, so the enabled path
/// is one more load and compare; an unoptimised one calls this one copy
/// instead of repeating the compare chain in every site (a site's code is
/// then the call of [`route`], and after the always-inliner its load,
/// compare and branch and this call).
#[inline]
pub fn routed(cs: &'static Callsite, needed: u8) -> Option<Route> {
    if configured_for(cs, needed) {
        Some(Route::All)
    } else {
        unconfigured(cs, needed)
    }
}

/// The hot check of a common site (the `site!` template): [`route`]
/// answering only yes or no. The site's record function
/// (`dispatch_message_at`, `dispatch_text_at`) takes the callsite, not the
/// route, so it asks `configured_for` again (one more load of the site,
/// on the cold path): in an unoptimised build the site's code is then this
/// call, a branch and the closure's call, with no `Option` to match.
#[inline(always)]
pub fn hit(cs: &'static Callsite, needed: u8) -> bool {
    needed <= cs.interest() && (configured_for(cs, needed) || unconfigured(cs, needed).is_some())
}

/// `enabled!`: one load when the answer is cached and no; a second (the
/// configured byte) when yes.
#[inline(always)]
pub fn enabled(cs: &'static Callsite, needed: u8) -> bool {
    needed <= cs.interest() && of_site(cs, needed).is_some()
}

/// Whether `cs` is resolved and its configuration wants level `needed`:
/// the route is then [`Route::All`].
#[inline(always)]
pub(crate) fn configured_for(cs: &'static Callsite, needed: u8) -> bool {
    // Levels are 0..=5 and `UNRESOLVED` is 255, -1 as an `i8`: one signed
    // compare answers both.
    cs.configured() as i8 >= needed as i8
}

/// The route of a site the cached configuration byte does not let through:
/// it is unresolved, or a capture raised it (or the configuration changed
/// since the hot check).
#[cold]
#[inline(never)]
pub(crate) fn unconfigured(cs: &'static Callsite, needed: u8) -> Option<Route> {
    of_site(cs, needed)
}

/// The whole decision for a site whose hot check passed (or that has
/// none), resolving it first if it is still unresolved: see the module
/// documentation. What a site with a sampling filter asks after its filter
/// passed, and what sites with a run-time target and the bridges ask.
#[inline(always)]
pub fn of_site(cs: &'static Callsite, needed: u8) -> Option<Route> {
    if needed <= crate::runtime::configured(cs) {
        Some(Route::All)
    } else if needed <= cs.interest() && dispatch::capturing_here() {
        Some(Route::CapturesOnly)
    } else {
        None
    }
}

/// [`of_site`] for a site with a run-time target, at `level`.
#[inline]
pub(crate) fn of_target_site(cs: &'static Callsite, level: Level) -> Option<Route> {
    of_site(cs, level.as_u8())
}

/// Whether `level` is above what any namespace and sink allows, by one
/// load (then a run-time target needs no lookup), unless this thread is in
/// a test capture, which wants every level.
#[inline]
pub(crate) fn above_every_namespace(level: Level) -> bool {
    above_every_level(level.as_u8())
}

/// `above_every_namespace` by level number: what a site with a run-time
/// target asks before it looks its target up.
#[inline(always)]
pub fn above_every_level(needed: u8) -> bool {
    // A global load first: the thread-local read only while some thread
    // is in a capture.
    needed > crate::dispatch::interest::max_level_cached()
        && !(dispatch::captures_anywhere() && dispatch::capturing_here())
}
