//! The checks static gate removes check code from the binary: the fixture in
//! `fixtures/static-gate` calls a marker function from a `check!` condition,
//! from each `#[checked]` condition and from a `debug_mode!()` block. A
//! marker's symbol is in the binary exactly when its site generated code.
//!
//! The fixture is a separate build (features unify within one).

use std::path::{Path, PathBuf};
use std::process::Command;

const MARKERS: [&str; 4] = [
    "elide_marker_check_cond",
    "elide_marker_checked_requires",
    "elide_marker_checked_ensures",
    "elide_marker_debug_mode_block",
];

/// Builds the fixture and returns the binary's bytes.
fn build(release: bool, features: &str) -> Vec<u8> {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/static-gate");
    // Shared with tests/static_gate.rs: the builds they have in common are
    // reused (test binaries run one at a time; cargo locks the directory).
    let target: PathBuf =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/static-gate-fixture");
    let mut cmd = Command::new(env!("CARGO"));
    cmd.current_dir(&fixture)
        .args(["build", "--quiet", "--target-dir"])
        .arg(&target);
    if release {
        cmd.arg("--release");
    }
    if !features.is_empty() {
        cmd.args(["--features", features]);
    }
    let out = cmd.output().expect("run cargo");
    assert!(
        out.status.success(),
        "fixture build failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let profile = if release { "release" } else { "debug" };
    let exe = target.join(profile).join(format!(
        "static-gate-fixture{}",
        std::env::consts::EXE_SUFFIX
    ));
    std::fs::read(&exe).unwrap_or_else(|e| panic!("read {}: {e}", exe.display()))
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w == needle.as_bytes())
}

fn present(bin: &[u8]) -> Vec<&'static str> {
    MARKERS.into_iter().filter(|m| contains(bin, m)).collect()
}

#[test]
fn checks_off_removes_check_code_and_release_checks_off_only_from_release() {
    // Compiled in: every marker is there (so their absence below means
    // something).
    assert_eq!(present(&build(false, "")), MARKERS);
    // `checks_off` (in the fixture's `gate` feature): nothing, at opt-level 0.
    assert_eq!(present(&build(false, "gate")), Vec::<&str>::new());
    // `release_checks_off`: kept in debug builds, gone from release builds.
    assert_eq!(present(&build(false, "release_checks")), MARKERS);
    assert_eq!(present(&build(true, "release_checks")), Vec::<&str>::new());
    // ... which is the gate, not the optimiser: without it they stay.
    assert_eq!(present(&build(true, "")), MARKERS);
}
