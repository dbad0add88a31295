//! Items the macros expand to. Not public API: names and signatures may
//! change in any release.

pub use crate::callsite::{Callsite, UNRESOLVED};
pub use crate::check::{check, check_eq_details, check_ne_details, fail};
pub use crate::checked::{
    async_body, body, ensures, enter as checked_enter, exit as checked_exit, type_check_ensures,
};
pub use crate::counter::{Counter, ShardCell};
pub use crate::dispatch::dispatch;
pub use crate::metadata::{Kind, Metadata};
pub use crate::raw::{RawArg, RawCapture, RawDecode, RawFallback, RawMessage, RawWrap, ToRawArg};
pub use crate::runtime_site::site as runtime_site;
pub use crate::sample::{sample_nth, sample_undo, Every, First};
pub use crate::static_gate::{
    static_limit, INTEREST_OFF, INTEREST_ON, LEVEL_DEBUG, LEVEL_ERROR, LEVEL_INFO, LEVEL_OFF,
    LEVEL_TRACE, LEVEL_WARN,
};
pub use crate::telemetry::scope::{guard as scope_guard, open_scope, timed, timed_as};
pub use crate::value::{present_fields, FieldValue, ToValue, NO_FIELD};

/// For a site with a sampling filter: whether a hit that passed the hot
/// check (`needed <= seen`, `seen` the interest byte it loaded) and then the
/// filter emits: at once when `seen` is a resolved level,
/// else after resolving the site (its first hit, cold).
///
/// Not generic, so no site instantiates a copy of it: the site calls its own
/// `#[cold]`, non-inlined closure directly when this says yes.
#[inline(always)]
pub fn admit(cs: &'static Callsite, needed: u8, seen: u8) -> bool {
    seen != UNRESOLVED || needed <= crate::runtime::resolve(cs)
}

/// Whether a site at `level` emits: one load, a compare and a branch when
/// the answer is cached (the hot path of every site and of `enabled!`);
/// a site's first hit resolves it. Inlined, not generic: the site calls its
/// `#[cold]` closure directly when this says yes.
#[inline(always)]
pub fn enabled(cs: &'static Callsite, level: u8) -> bool {
    let v = cs.interest();
    level <= v && (v != UNRESOLVED || level <= crate::runtime::resolve(cs))
}

/// Type-checks `%x` in a statically disabled site.
#[inline(always)]
pub fn type_check_display<T: core::fmt::Display + ?Sized>(_: &T) {}

/// Type-checks `?x` in a statically disabled site.
#[inline(always)]
pub fn type_check_debug<T: core::fmt::Debug + ?Sized>(_: &T) {}
