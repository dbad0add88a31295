//! Items the macros expand to. Not public API: names and signatures may
//! change in any release.

pub use crate::check::checked::{
    async_body, body, ensures, enter as checked_enter, exit as checked_exit, type_check_ensures,
};
pub use crate::check::{check, check_eq_details, check_ne_details, fail};
pub use crate::dispatch::{dispatch, dispatch_to, Route};
pub use crate::record::metadata::{Kind, Metadata};
pub use crate::record::raw::{
    FloatStyle, MessageFormat, Piece, RawArg, RawByTrait, RawDecode, RawFloat, RawMessage,
    RawUnformattable, RawWrap, ToRawArg,
};
pub use crate::record::value::{
    debug_field, display_field, field, with_present_fields, FieldValue, ToValue,
};
pub use crate::runtime::runtime_site::site as runtime_site;
pub use crate::runtime::sample::{sample_nth, sample_undo, Every, First};
pub use crate::site::callsite::{Callsite, UNRESOLVED};
pub use crate::site::counter::{Counter, ShardCell};
pub use crate::site::static_gate::{
    gate as gates, static_limit, FEATURE_CHECKS, FEATURE_LEVEL, FEATURE_TELEMETRY, INTEREST_OFF,
    INTEREST_ON, LEVEL_DEBUG, LEVEL_ERROR, LEVEL_INFO, LEVEL_OFF, LEVEL_TRACE, LEVEL_WARN,
};
pub use crate::span::{instrumented, open_span};
pub use crate::telemetry::scope::{
    open_scope, scope_bind, scope_guard, timed, timed_as, NoScope, Timed,
};
#[doc(inline)]
pub use crate::{__elide_gate as gate, __elide_log_site as log_site, __elide_record as record};

// The route of a record is decided in `route`; these are the names the
// macro expansions call.
pub use crate::runtime::route::{above_every_level, enabled, hit, of_site as admit, route, routed};
// A log site's record, built and handed to dispatch.
pub use crate::runtime::site_record::{
    dispatch_decoded_at, dispatch_event, dispatch_message, dispatch_message_at, dispatch_text,
    dispatch_text_at,
};

/// A record's raw view of its message, if the site captured every
/// argument by value (for the tests of the macros' argument capture; sinks
/// see the message through `Record::args` and `Record::write_message`).
pub fn record_raw<'r, 'a>(record: &'r crate::record::Record<'a>) -> Option<&'r RawMessage<'a>> {
    record.raw()
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
    use crate::config::env::keys::{Ctx, KEYS, LOG_TGT};
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
