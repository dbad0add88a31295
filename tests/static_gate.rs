//! The static gate generates no code: a fixture crate is built with and
//! without the gate features, in the dev profile (opt-level 0) and in release
//! (opt-level 3), and its binary's symbol table is searched for marker
//! functions that are called only from the arguments of gated sites.
//!
//! Cargo features unify within one build, so the fixture is a separate
//! build with its own target directory.

use std::path::{Path, PathBuf};
use std::process::Command;

const MARKERS: [&str; 5] = [
    "elide_marker_debug_arg",
    "elide_marker_trace_field",
    "elide_marker_check_cond",
    "elide_marker_telemetry_field",
    "elide_marker_counter_amount",
];

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/static-gate")
}

/// Builds the fixture and returns (binary bytes, stdout of running it).
fn build_and_run(release: bool, gate: bool) -> (Vec<u8>, String) {
    // Builds with and without `gate` write the same binary path; one at a time.
    static BUILD: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one = BUILD.lock().unwrap_or_else(|e| e.into_inner());
    let target_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/static-gate-fixture");
    let mut cmd = Command::new(env!("CARGO"));
    cmd.arg("build")
        .arg("--quiet")
        .arg("--manifest-path")
        .arg(fixture_dir().join("Cargo.toml"))
        .arg("--target-dir")
        .arg(&target_dir);
    if release {
        cmd.arg("--release");
    }
    if gate {
        cmd.args(["--features", "gate"]);
    }
    let out = cmd.output().expect("run cargo");
    assert!(
        out.status.success(),
        "fixture build failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bin = target_dir
        .join(if release { "release" } else { "debug" })
        .join("static-gate-fixture");
    let bytes = std::fs::read(&bin).expect("read fixture binary");
    let run = Command::new(&bin).output().expect("run fixture");
    assert!(run.status.success());
    (bytes, String::from_utf8_lossy(&run.stdout).into_owned())
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w == needle.as_bytes())
}

fn check_profile(release: bool) {
    let (control, control_out) = build_and_run(release, false);
    for m in MARKERS {
        assert!(contains(&control, m), "control build must contain {m}");
    }
    assert!(
        control_out.contains("evaluated=5"),
        "control: all five live sites run: {control_out}"
    );

    let (gated, gated_out) = build_and_run(release, true);
    for m in MARKERS {
        assert!(
            !contains(&gated, m),
            "{m} must be absent when its site is statically off (release={release})"
        );
    }
    // Dev keeps info (max_level_info); release drops it (release_max_level_warn).
    let expect = if release {
        "evaluated=0"
    } else {
        "evaluated=1"
    };
    assert!(gated_out.contains(expect), "gated: {gated_out}");
    if release {
        assert!(!contains(&gated, "elide_marker_info_release"));
        assert!(contains(&control, "elide_marker_info_release"));
    }
}

#[test]
fn statically_off_sites_generate_no_code_at_opt_level_0() {
    check_profile(false);
}

#[test]
fn statically_off_sites_generate_no_code_at_opt_level_3() {
    check_profile(true);
}
