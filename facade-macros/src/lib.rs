//! Procedural macros for [`elide`](https://docs.rs/elide). Use them through
//! `elide`'s re-exports (`elide::debug!`, ...), never from this crate
//! directly: the expansions name `::elide::__private`.
//!
//! Each call site expands into three gates:
//! 1. the **static gate**, decided here from cargo features: a site above the
//!    static level becomes `if false { .. }`, which only type-checks;
//! 2. the **runtime gate**: one relaxed load of the site's own `static`
//!    interest byte, compared with a constant;
//! 3. the **cold path**: a closure handed to a `#[cold]` function in `elide`,
//!    which is the only place the arguments are evaluated.
//!
//! This crate knows syntax only; every run-time decision lives in `elide`.

mod args;
mod gate;
mod site;

use proc_macro::TokenStream;

/// Logs at error level. See `elide::error!`.
#[proc_macro]
pub fn error(input: TokenStream) -> TokenStream {
    site::log_fixed(1, "Error", input.into()).into()
}

/// Logs at warn level. See `elide::warn!`.
#[proc_macro]
pub fn warn(input: TokenStream) -> TokenStream {
    site::log_fixed(2, "Warn", input.into()).into()
}

/// Logs at info level. See `elide::info!`.
#[proc_macro]
pub fn info(input: TokenStream) -> TokenStream {
    site::log_fixed(3, "Info", input.into()).into()
}

/// Logs at debug level. See `elide::debug!`.
#[proc_macro]
pub fn debug(input: TokenStream) -> TokenStream {
    site::log_fixed(4, "Debug", input.into()).into()
}

/// Logs at trace level. See `elide::trace!`.
#[proc_macro]
pub fn trace(input: TokenStream) -> TokenStream {
    site::log_fixed(5, "Trace", input.into()).into()
}

/// Logs at a given level. See `elide::log!`.
#[proc_macro]
pub fn log(input: TokenStream) -> TokenStream {
    site::log_any(input.into()).into()
}

/// Whether a site at this level would emit. See `elide::enabled!`.
#[proc_macro]
pub fn enabled(input: TokenStream) -> TokenStream {
    site::enabled(input.into()).into()
}

/// A debug check. See `elide::check!`.
#[proc_macro]
pub fn check(input: TokenStream) -> TokenStream {
    site::check(input.into(), site::CheckKind::True).into()
}

/// A debug equality check. See `elide::check_eq!`.
#[proc_macro]
pub fn check_eq(input: TokenStream) -> TokenStream {
    site::check(input.into(), site::CheckKind::Eq).into()
}

/// A debug inequality check. See `elide::check_ne!`.
#[proc_macro]
pub fn check_ne(input: TokenStream) -> TokenStream {
    site::check(input.into(), site::CheckKind::Ne).into()
}

/// A telemetry event. See `elide::telemetry!`.
#[proc_macro]
pub fn telemetry(input: TokenStream) -> TokenStream {
    site::telemetry(input.into()).into()
}

/// An always-on counter. See `elide::counter!`.
#[proc_macro]
pub fn counter(input: TokenStream) -> TokenStream {
    site::counter(input.into()).into()
}
