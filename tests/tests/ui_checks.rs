//! Compile-fail cases: misuse of `#[checked]`, `check!` and `debug_mode!`
//! must fail with a message that says what to write instead.
//!
//! Regenerate the expected output with `TRYBUILD=overwrite`, then review it.

#![cfg(feature = "fixtures")]

#[test]
fn misuse_of_checks_fails_to_compile_with_helpful_messages() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/checked_*.rs");
    t.compile_fail("ui/check_*.rs");
    t.compile_fail("ui/debug_mode_*.rs");
}
