//! Items the macros expand to. Not public API: names and signatures may
//! change in any release.

pub use crate::callsite::{Callsite, UNRESOLVED};
pub use crate::check::{check, check_eq_details, check_ne_details, fail};
pub use crate::checked::{
    async_body, body, ensures, enter as checked_enter, exit as checked_exit, type_check_ensures,
};
pub use crate::counter::{Counter, ShardCell};
pub use crate::dispatch::{dispatch, dispatch_to, Route};
pub use crate::metadata::{Kind, Metadata};
pub use crate::raw::{
    FloatStyle, MessageFormat, Piece, RawArg, RawByBinary, RawByDebug, RawByDisplay, RawByLowerExp,
    RawByLowerHex, RawByOctal, RawByUpperExp, RawByUpperHex, RawCapture, RawDecode, RawFloat,
    RawMessage, RawUnformattable, RawWrap, ToRawArg,
};
pub use crate::runtime_site::site as runtime_site;
pub use crate::sample::{sample_nth, sample_undo, Every, First};
pub use crate::static_gate::{
    static_limit, FEATURE_CHECKS, FEATURE_LEVEL, FEATURE_TELEMETRY, INTEREST_OFF, INTEREST_ON,
    LEVEL_DEBUG, LEVEL_ERROR, LEVEL_INFO, LEVEL_OFF, LEVEL_TRACE, LEVEL_WARN, STATIC_CHECKS_DEBUG,
    STATIC_CHECKS_RELEASE, STATIC_DEBUG_DEBUG, STATIC_DEBUG_RELEASE, STATIC_ERROR_DEBUG,
    STATIC_ERROR_RELEASE, STATIC_INFO_DEBUG, STATIC_INFO_RELEASE, STATIC_TELEMETRY_DEBUG,
    STATIC_TELEMETRY_RELEASE, STATIC_TRACE_DEBUG, STATIC_TRACE_RELEASE, STATIC_WARN_DEBUG,
    STATIC_WARN_RELEASE,
};
pub use crate::telemetry::scope::{open_scope, scope_bind, scope_guard, timed, timed_as};
pub use crate::value::{present_fields, with_present_fields, FieldValue, ToValue, NO_FIELD};
#[doc(inline)]
pub use crate::{__elide_record as record, __elide_site as site};

/// Where the record of a site at level `needed` goes, if anywhere: the hot
/// check (one load of the site's interest, a compare, a branch), then, on a
/// hit, the route (the installed sinks, or only this thread's test
/// captures), resolving the site on its first hit. Inlined, not generic: a
/// site with a run-time target calls its own `#[cold]`, non-inlined closure
/// directly with the route (a common site asks [`hit`] instead).
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
    if wanted(cs, needed) {
        Some(Route::All)
    } else {
        route_cold(cs, needed)
    }
}

/// An unresolved site, or one raised for a test capture.
#[cold]
#[inline(never)]
fn route_cold(cs: &'static Callsite, needed: u8) -> Option<Route> {
    crate::runtime::route(cs, needed)
}

/// The hot check of a common site (the `site!` template): [`route`]
/// answering only yes or no. The record's dispatch
/// ([`dispatch_message_at`], [`dispatch_text_at`]) decides the route again
/// from the callsite (one more load of it, on the cold path), so the site
/// passes nothing on: in an unoptimised build its code is this call, a
/// branch and the closure's call, with no `Option` to match.
#[inline(always)]
pub fn hit(cs: &'static Callsite, needed: u8) -> bool {
    needed <= cs.interest() && (wanted(cs, needed) || route_cold(cs, needed).is_some())
}

/// Whether `cs` is resolved and its configuration wants level `needed`.
#[inline(always)]
fn wanted(cs: &'static Callsite, needed: u8) -> bool {
    // Levels are 0..=5 and `UNRESOLVED` is 255, -1 as an `i8`: one signed
    // compare answers both.
    cs.configured() as i8 >= needed as i8
}

/// For a site with a sampling filter, after its hot check and its filter
/// passed: the route, or `None` if the site turns out disabled (it was
/// unresolved, or the configuration changed meanwhile, or it was raised for
/// a capture on another thread) and the filter must get its slot back.
#[inline(always)]
pub fn admit(cs: &'static Callsite, needed: u8) -> Option<Route> {
    crate::runtime::route(cs, needed)
}

/// `enabled!`: one load when the answer is cached and no; a second (the
/// configured byte) when yes.
#[inline(always)]
pub fn enabled(cs: &'static Callsite, level: u8) -> bool {
    level <= cs.interest() && crate::runtime::route(cs, level).is_some()
}

/// The cold path of a log site with message arguments: the record, with
/// its raw view when every argument is held by value, built from the
/// site's message format, its present fields, and dispatched. Not generic
/// and not inlined: one copy serves every site, which only builds its
/// arguments and fields.
#[inline(never)]
pub fn dispatch_message(
    route: Route,
    meta: &'static Metadata,
    level: crate::Level,
    kv: &[(&'static str, Option<crate::Value<'_>>)],
    format: &'static MessageFormat,
    args: &[RawArg<'_>],
) {
    with_fields(kv, |fields| {
        message_record(route, meta, level, fields, format, args)
    })
}

/// [`dispatch_message`] for a common site, after its [`hit`]: the route is
/// the callsite's again, found here rather than passed through the site's
/// code. It can only differ from the hot check's if the configuration
/// changed in between; the record then goes where the new one sends it, or
/// nowhere.
#[inline(never)]
pub fn dispatch_message_at(
    cs: &'static Callsite,
    level: crate::Level,
    kv: &[(&'static str, Option<crate::Value<'_>>)],
    format: &'static MessageFormat,
    args: &[RawArg<'_>],
) {
    if wanted(cs, level.as_u8()) {
        with_fields(kv, |fields| {
            message_record(Route::All, &cs.meta, level, fields, format, args)
        })
    } else {
        // A tail call with the same arguments: the fast path above keeps
        // nothing across a call, so it saves no registers.
        message_rerouted(cs, level, kv, format, args)
    }
}

/// [`dispatch_message_at`] for a site the configuration does not want (a
/// capture raised it, or the configuration changed after its hot check).
#[cold]
#[inline(never)]
fn message_rerouted(
    cs: &'static Callsite,
    level: crate::Level,
    kv: &[(&'static str, Option<crate::Value<'_>>)],
    format: &'static MessageFormat,
    args: &[RawArg<'_>],
) {
    if let Some(route) = crate::runtime::route(cs, level.as_u8()) {
        dispatch_message(route, &cs.meta, level, kv, format, args)
    }
}

/// The record of `dispatch_message`, built where the message is: straight
/// in this frame for a data format (no closure, no indirect call), in the
/// decoder's callback otherwise.
#[inline(always)]
fn message_record(
    route: Route,
    meta: &'static Metadata,
    level: crate::Level,
    fields: &[crate::Field<'_>],
    format: &'static MessageFormat,
    args: &[RawArg<'_>],
) {
    let raw = Some(RawMessage::new(format, args));
    match format.split() {
        Ok(pieces) => dispatch_to(
            route,
            &crate::Record::new(
                meta,
                level,
                format_args!("{}", crate::raw::interpret(pieces, args)),
                fields,
            )
            .with_raw(raw),
        ),
        Err(decode) => decode(args, &mut |message| {
            dispatch_to(
                route,
                &crate::Record::new(meta, level, message, fields).with_raw(raw),
            )
        }),
    }
}

/// The cold path of a log site whose message is rendered on the caller (no
/// arguments, or a format the raw path does not take). Not generic.
#[inline(never)]
pub fn dispatch_text(
    route: Route,
    meta: &'static Metadata,
    level: crate::Level,
    kv: &[(&'static str, Option<crate::Value<'_>>)],
    message: core::fmt::Arguments<'_>,
) {
    with_fields(kv, |fields| {
        dispatch_to(route, &crate::Record::new(meta, level, message, fields))
    })
}

/// [`dispatch_text`] for a common site, as [`dispatch_message_at`].
#[inline(never)]
pub fn dispatch_text_at(
    cs: &'static Callsite,
    level: crate::Level,
    kv: &[(&'static str, Option<crate::Value<'_>>)],
    message: core::fmt::Arguments<'_>,
) {
    if wanted(cs, level.as_u8()) {
        dispatch_text(Route::All, &cs.meta, level, kv, message)
    } else {
        text_rerouted(cs, level, kv, message)
    }
}

/// [`dispatch_text_at`] for a site the configuration does not want.
#[cold]
#[inline(never)]
fn text_rerouted(
    cs: &'static Callsite,
    level: crate::Level,
    kv: &[(&'static str, Option<crate::Value<'_>>)],
    message: core::fmt::Arguments<'_>,
) {
    if let Some(route) = crate::runtime::route(cs, level.as_u8()) {
        dispatch_text(route, &cs.meta, level, kv, message)
    }
}

/// Runs `emit` on the present fields of `kv`: directly when the site has
/// none (no indirect call), else through [`with_present_fields`].
#[inline(always)]
fn with_fields(
    kv: &[(&'static str, Option<crate::Value<'_>>)],
    mut emit: impl FnMut(&[crate::Field<'_>]),
) {
    if kv.is_empty() {
        emit(&[])
    } else {
        with_present_fields(kv, &mut emit)
    }
}

/// Type-checks `%x` in a statically disabled site.
#[inline(always)]
pub fn type_check_display<T: core::fmt::Display + ?Sized>(_: &T) {}

/// Type-checks `?x` in a statically disabled site.
#[inline(always)]
pub fn type_check_debug<T: core::fmt::Debug + ?Sized>(_: &T) {}

/// Runs the parser of every key in elide's table of environment keys on
/// `text` and checks what each promises: no panic, a reason for every
/// refusal, and for `LOG_TGT` at most one target per comma-separated item.
/// Pure: nothing is opened or installed. For the fuzz target in `fuzz/`
/// (run by hand; see CONTRIBUTING.md).
pub fn fuzz_env_value(text: &str) {
    use crate::env::keys::{Ctx, KEYS, LOG_TGT};
    use std::path::Path;
    let ctx = Ctx {
        cwd: Path::new("/cwd"),
        log_dir: Path::new("/logs"),
        name: "app",
        home: Some(Path::new("/home")),
    };
    for key in KEYS {
        if let Err(e) = key.check(text, &ctx) {
            assert!(
                !e.is_empty(),
                "{}: a refusal without a reason for {text:?}",
                key.name()
            );
        }
    }
    if let Ok(targets) = (LOG_TGT.parse)(text, &ctx) {
        assert!(targets.0.len() <= text.split(',').count());
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
