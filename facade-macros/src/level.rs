//! Level numbers and the interest byte, as this crate needs them.
//!
//! The generated code names only `elide`'s constants (`LEVEL_INFO`,
//! `INTEREST_ON` in `::elide::__private`), defined there from its `Level`
//! enum. The numbers stay here because the build-time filters are read
//! while the macro expands: comparing a filter's value with the site's
//! level here lets a site the filter turns off expand to its dead form
//! alone, and names a rule's value for `static_limit`. A proc-macro crate
//! cannot depend on `elide`, so this is a copy, which `elide`'s test
//! `constants_are_the_level_numbers_and_the_on_byte` holds to the same
//! numbers.

use crate::expand::ELIDE;
use proc_macro2::{Span, TokenStream};
use quote::quote;

/// The "off" threshold: below every level.
pub(crate) const OFF: u8 = 0;
/// The most verbose level number.
pub(crate) const TRACE: u8 = 5;

/// A level known while the macro expands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Level {
    /// `Level::X as u8` in `elide`.
    pub(crate) number: u8,
    /// The variant name in `elide::Level`.
    pub(crate) name: &'static str,
}

/// `elide::Level::Error`.
pub(crate) const ERROR: Level = Level::new(1, "Error");
/// `elide::Level::Warn`.
pub(crate) const WARN: Level = Level::new(2, "Warn");
/// `elide::Level::Info`.
pub(crate) const INFO: Level = Level::new(3, "Info");
/// `elide::Level::Debug`.
pub(crate) const DEBUG: Level = Level::new(4, "Debug");
/// `elide::Level::Trace`.
pub(crate) const TRACE_LEVEL: Level = Level::new(TRACE, "Trace");

const ALL: [Level; 5] = [ERROR, WARN, INFO, DEBUG, TRACE_LEVEL];

impl Level {
    const fn new(number: u8, name: &'static str) -> Level {
        Level { number, name }
    }

    /// The level named by the last segment of a path (`Level::Info`,
    /// `elide::Level::Info`, `Info`, or tracing's `Level::INFO`).
    pub(crate) fn from_variant(name: &str) -> Option<Level> {
        ALL.into_iter()
            .find(|l| l.name == name || l.name.to_ascii_uppercase() == name)
    }

    /// `::elide::Level::Info`.
    pub(crate) fn variant(self) -> TokenStream {
        let v = syn::Ident::new(self.name, Span::call_site());
        quote!(#ELIDE::Level::#v)
    }

    /// `::elide::__private::LEVEL_INFO`: the number, named.
    pub(crate) fn number_tokens(self) -> TokenStream {
        number_tokens(self.number)
    }
}

/// The `::elide::__private` constant for a threshold number (0 = off).
pub(crate) fn number_tokens(n: u8) -> TokenStream {
    let name = syn::Ident::new(number_name(n), Span::call_site());
    quote!(#ELIDE::__private::#name)
}

/// The name of that constant (`LEVEL_INFO`), for a template that prefixes
/// it itself.
pub(crate) fn number_name(n: u8) -> &'static str {
    match n {
        OFF => "LEVEL_OFF",
        1 => "LEVEL_ERROR",
        2 => "LEVEL_WARN",
        3 => "LEVEL_INFO",
        4 => "LEVEL_DEBUG",
        _ => "LEVEL_TRACE",
    }
}

/// `::elide::__private::INTEREST_ON`: the interest byte of a check or
/// telemetry site that is on; sites compare `INTEREST_ON <= interest`.
pub(crate) fn interest_on() -> TokenStream {
    quote!(#ELIDE::__private::INTEREST_ON)
}

/// The `::elide::__private` constant for an on/off limit: `INTEREST_ON`
/// or `INTEREST_OFF`.
pub(crate) fn switch_tokens(on: bool) -> TokenStream {
    if on {
        interest_on()
    } else {
        quote!(#ELIDE::__private::INTEREST_OFF)
    }
}

/// Parses a threshold in a static filter: `off`, `error`, `warn`, `info`,
/// `debug`, `trace` (case-insensitive; `warning` and `critical` as in the
/// run-time configuration).
pub(crate) fn parse_threshold(text: &str) -> Option<u8> {
    Some(match text.to_ascii_lowercase().as_str() {
        "off" => OFF,
        "error" | "critical" => ERROR.number,
        "warn" | "warning" => WARN.number,
        "info" => INFO.number,
        "debug" => DEBUG.number,
        "trace" => TRACE,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A level written as a path is known while the macro expands (so the
    /// static gate can drop the site) in elide's and tracing's spelling.
    #[test]
    fn levels_are_known_by_their_variant_in_either_spelling() {
        for l in ALL {
            assert_eq!(Level::from_variant(l.name), Some(l));
            assert_eq!(Level::from_variant(&l.name.to_ascii_uppercase()), Some(l));
        }
        assert_eq!(Level::from_variant("info"), None);
        assert_eq!(Level::from_variant("Verbose"), None);
    }

    /// Every threshold names the `elide::__private` constant of its own
    /// level (those constants are checked against `elide::Level` there),
    /// and `off` names the one below every level.
    #[test]
    fn thresholds_name_their_own_constant() {
        assert_eq!(number_name(OFF), "LEVEL_OFF");
        for l in ALL {
            let expected = format!("LEVEL_{}", l.name.to_ascii_uppercase());
            assert_eq!(number_name(l.number), expected);
        }
        assert_eq!(
            switch_tokens(false).to_string(),
            quote!(#ELIDE::__private::INTEREST_OFF).to_string()
        );
        assert_eq!(switch_tokens(true).to_string(), interest_on().to_string());
    }

    /// The threshold names of a static filter, as the run-time
    /// configuration spells them (any case, `warning`, `critical`).
    #[test]
    fn every_threshold_name_parses_to_its_level() {
        let cases = [
            ("off", OFF),
            ("Error", ERROR.number),
            ("critical", ERROR.number),
            ("WARN", WARN.number),
            ("warning", WARN.number),
            ("info", INFO.number),
            ("debug", DEBUG.number),
            ("Trace", TRACE),
        ];
        for (text, n) in cases {
            assert_eq!(parse_threshold(text), Some(n), "{text}");
        }
        assert_eq!(parse_threshold("verbose"), None);
    }
}
