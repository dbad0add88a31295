//! Items the macros expand to. Not public API: names and signatures may
//! change in any release.

pub use crate::callsite::{Callsite, UNRESOLVED};
pub use crate::check::{check, check_eq_details, check_ne_details, fail};
pub use crate::checked::{
    async_body, body, ensures, enter as checked_enter, exit as checked_exit, type_check_ensures,
};
pub use crate::counter::{Counter, COUNTERS};
pub use crate::dispatch::{dispatch, dispatch_to, Route};
pub use crate::metadata::{Kind, Metadata};
pub use crate::raw::{RawArg, RawCapture, RawDecode, RawFallback, RawMessage, RawWrap, ToRawArg};
pub use crate::runtime_site::site as runtime_site;
pub use crate::sample::{sample_nth, sample_undo, Every, First};
pub use crate::static_gate::{
    static_limit, INTEREST_OFF, INTEREST_ON, LEVEL_DEBUG, LEVEL_ERROR, LEVEL_INFO, LEVEL_OFF,
    LEVEL_TRACE, LEVEL_WARN,
};
pub use crate::telemetry::scope::{guard as scope_guard, open_scope, timed, timed_as};
pub use crate::value::{with_fields, FieldValue, ToValue};
pub use linkme;

/// The cold path of a site: resolves it if needed, re-checks the threshold
/// and runs `f`, which evaluates the arguments and dispatches the record
/// along the route it is given.
#[cold]
#[inline(never)]
pub fn emit<F: FnOnce(&'static Metadata, Route)>(cs: &'static Callsite, needed: u8, f: F) {
    if let Some(route) = crate::runtime::route(cs, needed) {
        f(cs.metadata(), route)
    }
}

/// The cold path of a sampled site whose hit passed its filter: like
/// [`emit`], but if the site turns out disabled (it was unresolved, or the
/// configuration changed meanwhile, or it was raised for a capture on
/// another thread) `undo` returns the filter's slot.
#[cold]
#[inline(never)]
pub fn emit_sampled<U: FnOnce(), F: FnOnce(&'static Metadata, Route)>(
    cs: &'static Callsite,
    needed: u8,
    undo: U,
    f: F,
) {
    match crate::runtime::route(cs, needed) {
        Some(route) => f(cs.metadata(), route),
        None => undo(),
    }
}

/// `enabled!`: one load when the answer is cached and no; a second (the
/// configured byte) when yes.
#[inline(always)]
pub fn enabled(cs: &'static Callsite, level: u8) -> bool {
    level <= cs.interest() && crate::runtime::route(cs, level).is_some()
}

/// Type-checks `%x` in a statically disabled site.
#[inline(always)]
pub fn type_check_display<T: core::fmt::Display + ?Sized>(_: &T) {}

/// Type-checks `?x` in a statically disabled site.
#[inline(always)]
pub fn type_check_debug<T: core::fmt::Debug + ?Sized>(_: &T) {}

/// Runs every environment-value parser (`LOG_LVL`, the flags, the
/// directories, `LOG_TGT`, `LOG_MODE`) on `text` and checks what each
/// promises: no panic, a reason for every refusal, at most one target per
/// comma-separated item. Pure: nothing is opened or installed. For the fuzz
/// target in `fuzz/` (run by hand; see the README).
pub fn fuzz_env_value(text: &str) {
    use crate::env::parse;
    use std::path::Path;
    let reason = |r: Result<(), String>| {
        if let Err(e) = r {
            assert!(!e.is_empty(), "a refusal without a reason for {text:?}");
        }
    };
    reason(parse::parse_level(text).map(drop));
    reason(parse::parse_flag(text).map(drop));
    reason(parse::parse_dir(text, Path::new("/cwd")).map(drop));
    reason(parse::parse_log_mode(text).map(drop));
    match parse::parse_targets(text, Path::new("/logs"), "app") {
        Ok(targets) => assert!(targets.0.len() <= text.split(',').count()),
        Err(e) => assert!(!e.is_empty()),
    }
}

#[cfg(test)]
mod tests {
    /// The fuzz hook's own checks hold on inputs of every shape the parsers
    /// branch on (the fuzzer explores the rest by hand).
    #[test]
    fn fuzz_hook_accepts_every_shape() {
        for text in [
            "",
            " ",
            "debug",
            "DEBUG_9",
            "60",
            "99999999999999999999",
            "yes",
            "off",
            "-,=,0,.,/abs,rel, ,,",
            "async",
            "\u{0}\u{2028}",
            "\u{FFFD}x,,,y",
        ] {
            super::fuzz_env_value(text);
        }
    }
}
