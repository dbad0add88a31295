//! Compile-time diagnostics of the log, counter and enabled macros.

#![cfg(feature = "fixtures")]

#[test]
fn macro_misuse_is_reported_at_the_offending_token() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/log_*.rs");
    t.compile_fail("ui/counter_*.rs");
    t.compile_fail("ui/enabled_*.rs");
    t.compile_fail("ui/telemetry_*.rs");
}

/// A `scope!` guard dropped at once warns (`unused_must_use`, denied in
/// the case): the `Option` the macro yields must not hide the guard's
/// `#[must_use]`.
#[test]
fn a_scope_guard_dropped_at_once_warns() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/scope_*.rs");
}

/// Forms that must compile cleanly, under `#![deny(warnings)]` where it
/// matters (a level path's `use` counts as used).
#[test]
fn log_and_tracing_forms_compile_without_warnings() {
    let t = trybuild::TestCases::new();
    t.pass("ui-pass/*.rs");
}
