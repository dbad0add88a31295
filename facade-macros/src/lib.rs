//! Procedural macros for [`elide`](https://docs.rs/elide). Use them through
//! `elide` (`elide::debug!`, ...), never from this crate directly: elide's
//! `macro_rules!` front doors hand them the path of the `elide` crate
//! (`crate = $crate,`), and the attributes and check macros find it in the
//! caller's manifest.
//!
//! Each call site expands into three gates:
//! 1. the **static gate**: the build-time filters (`ELIDE_STATIC_LEVEL`,
//!    ...), read here, and `elide`'s cargo features, which the site tests
//!    through `elide`'s constants in `if const { .. }` (this crate has no
//!    features): a site that is off leaves no code, and still type-checks;
//! 2. the **runtime gate**: one relaxed load of the site's own `static`
//!    interest byte, compared with a constant;
//! 3. the **cold path**: a closure handed to a `#[cold]` function in `elide`,
//!    which is the only place the arguments are evaluated.
//!
//! This crate knows syntax only; every run-time decision lives in `elide`.
//! One module per macro (its arguments' parser and its code generation);
//! `callsite`, `fields`, `gate` and `level` hold what they share.

// The pointer docs on the entry points exist only under `cfg(doc)` (so they are
// not appended to `elide`'s pages); rustdoc checks them.
#![cfg_attr(doc, warn(missing_docs))]
#![warn(unreachable_pub, missing_debug_implementations)]

mod args;
mod callsite;
mod check;
mod checked;
mod counter;
mod debug_mode;
mod describe;
mod emit;
mod enabled;
mod expand;
mod fields;
mod gate;
mod impl_trait;
mod instrument;
mod level;
mod log_site;
mod manifest;
mod raw_message;
mod scope;
mod source_text;
mod span;
mod static_filter;
mod telemetry;

use proc_macro::TokenStream;

// Each macro's user docs are on its re-export in `elide` (facade/src/macros.rs).
// rustdoc appends the re-exported item's own docs to them, so the pointers
// below are `cfg_attr(doc, ..)`: they show on this crate's pages, but the
// metadata `elide`'s docs are built from is compiled without `cfg(doc)`, so
// each `elide::*` macro page carries the user docs alone.

#[cfg_attr(
    doc,
    doc = "Logs at error level. Documented at `elide::error!`; use it from there."
)]
#[proc_macro]
pub fn error(input: TokenStream) -> TokenStream {
    log_site::log_fixed(level::ERROR, input.into()).into()
}

#[cfg_attr(
    doc,
    doc = "Logs at warn level. Documented at `elide::warn!`; use it from there."
)]
#[proc_macro]
pub fn warn(input: TokenStream) -> TokenStream {
    log_site::log_fixed(level::WARN, input.into()).into()
}

#[cfg_attr(
    doc,
    doc = "Logs at info level. Documented at `elide::info!`; use it from there."
)]
#[proc_macro]
pub fn info(input: TokenStream) -> TokenStream {
    log_site::log_fixed(level::INFO, input.into()).into()
}

#[cfg_attr(
    doc,
    doc = "Logs at debug level. Documented at `elide::debug!`; use it from there."
)]
#[proc_macro]
pub fn debug(input: TokenStream) -> TokenStream {
    log_site::log_fixed(level::DEBUG, input.into()).into()
}

#[cfg_attr(
    doc,
    doc = "Logs at trace level. Documented at `elide::trace!`; use it from there."
)]
#[proc_macro]
pub fn trace(input: TokenStream) -> TokenStream {
    log_site::log_fixed(level::TRACE_LEVEL, input.into()).into()
}

#[cfg_attr(
    doc,
    doc = "Logs at a given level. Documented at `elide::log!`; use it from there."
)]
#[proc_macro]
pub fn log(input: TokenStream) -> TokenStream {
    log_site::log_any(input.into()).into()
}

#[cfg_attr(
    doc,
    doc = "`tracing`'s name for `log!`. Documented at `elide::event!`; use it from there."
)]
#[proc_macro]
pub fn event(input: TokenStream) -> TokenStream {
    log_site::log_any(input.into()).into()
}

#[cfg_attr(
    doc,
    doc = "Whether a site at this level would emit. Documented at `elide::enabled!`; use it from there."
)]
#[proc_macro]
pub fn enabled(input: TokenStream) -> TokenStream {
    enabled::enabled(input.into()).into()
}

#[cfg_attr(
    doc,
    doc = "`log`'s name for `enabled!`. Documented at `elide::log_enabled!`; use it from there."
)]
#[proc_macro]
pub fn log_enabled(input: TokenStream) -> TokenStream {
    enabled::enabled(input.into()).into()
}

#[cfg_attr(
    doc,
    doc = "`tracing`'s name for `enabled!`. Documented at `elide::event_enabled!`; use it from there."
)]
#[proc_macro]
pub fn event_enabled(input: TokenStream) -> TokenStream {
    enabled::event_enabled(input.into()).into()
}

#[cfg_attr(
    doc,
    doc = "A debug check. Documented at `elide::check!`; use it from there."
)]
#[proc_macro]
pub fn check(input: TokenStream) -> TokenStream {
    expand::in_calling_crate(|| check::check(input.into(), check::CheckKind::True)).into()
}

#[cfg_attr(
    doc,
    doc = "A debug equality check. Documented at `elide::check_eq!`; use it from there."
)]
#[proc_macro]
pub fn check_eq(input: TokenStream) -> TokenStream {
    expand::in_calling_crate(|| check::check(input.into(), check::CheckKind::Eq)).into()
}

#[cfg_attr(
    doc,
    doc = "A debug inequality check. Documented at `elide::check_ne!`; use it from there."
)]
#[proc_macro]
pub fn check_ne(input: TokenStream) -> TokenStream {
    expand::in_calling_crate(|| check::check(input.into(), check::CheckKind::Ne)).into()
}

#[cfg_attr(
    doc,
    doc = "Whether debug mode is on for the calling module. Documented at `elide::debug_mode!`; use it from there."
)]
#[proc_macro]
pub fn debug_mode(input: TokenStream) -> TokenStream {
    debug_mode::debug_mode(input.into()).into()
}

#[cfg_attr(
    doc,
    doc = "Pre- and postconditions on a function. Documented at `elide::checked`; use it from there."
)]
#[proc_macro_attribute]
pub fn checked(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::attribute(attr.into(), item.into(), checked::expand).into()
}

#[cfg_attr(
    doc,
    doc = "A telemetry event. Documented at `elide::telemetry!`; use it from there."
)]
#[proc_macro]
pub fn telemetry(input: TokenStream) -> TokenStream {
    telemetry::telemetry(input.into()).into()
}

#[cfg_attr(
    doc,
    doc = "An always-on counter. Documented at `elide::counter!`; use it from there."
)]
#[proc_macro]
pub fn counter(input: TokenStream) -> TokenStream {
    counter::counter(input.into()).into()
}

#[cfg_attr(
    doc,
    doc = "A timed scope. Documented at `elide::scope!`; use it from there."
)]
#[proc_macro]
pub fn scope(input: TokenStream) -> TokenStream {
    scope::scope(input.into()).into()
}

#[cfg_attr(
    doc,
    doc = "Times a function as a scope. Documented at `elide::timed`; use it from there."
)]
#[proc_macro_attribute]
pub fn timed(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::attribute(attr.into(), item.into(), scope::timed).into()
}

#[cfg_attr(
    doc,
    doc = "A span at a given level. Documented at `elide::span!`; use it from there."
)]
#[proc_macro]
pub fn span(input: TokenStream) -> TokenStream {
    span::span(None, input.into()).into()
}

#[cfg_attr(
    doc,
    doc = "A span at error level. Documented at `elide::error_span!`; use it from there."
)]
#[proc_macro]
pub fn error_span(input: TokenStream) -> TokenStream {
    span::span(Some(level::ERROR), input.into()).into()
}

#[cfg_attr(
    doc,
    doc = "A span at warn level. Documented at `elide::warn_span!`; use it from there."
)]
#[proc_macro]
pub fn warn_span(input: TokenStream) -> TokenStream {
    span::span(Some(level::WARN), input.into()).into()
}

#[cfg_attr(
    doc,
    doc = "A span at info level. Documented at `elide::info_span!`; use it from there."
)]
#[proc_macro]
pub fn info_span(input: TokenStream) -> TokenStream {
    span::span(Some(level::INFO), input.into()).into()
}

#[cfg_attr(
    doc,
    doc = "A span at debug level. Documented at `elide::debug_span!`; use it from there."
)]
#[proc_macro]
pub fn debug_span(input: TokenStream) -> TokenStream {
    span::span(Some(level::DEBUG), input.into()).into()
}

#[cfg_attr(
    doc,
    doc = "A span at trace level. Documented at `elide::trace_span!`; use it from there."
)]
#[proc_macro]
pub fn trace_span(input: TokenStream) -> TokenStream {
    span::span(Some(level::TRACE_LEVEL), input.into()).into()
}

#[cfg_attr(
    doc,
    doc = "Runs a function in a span. Documented at `elide::instrument`; use it from there."
)]
#[proc_macro_attribute]
pub fn instrument(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::attribute(attr.into(), item.into(), instrument::instrument).into()
}

/// What the static gate of this build is: the features and the parsed
/// build-time filters, as data for `elide::describe`. Not public API.
#[doc(hidden)]
#[proc_macro]
pub fn __static_gate(input: TokenStream) -> TokenStream {
    describe::static_gate(input.into()).into()
}
