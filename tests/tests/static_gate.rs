//! The static gate generates no code. The fixture workspace in
//! `fixtures/static-gate` (a binary `app` and its dependency `dep`) is built
//! under each gate configuration, in the dev profile (opt-level 0) and in
//! release (opt-level 3); its binary's symbol table is searched for marker
//! functions that are called only from the arguments of gated sites, so a
//! marker is present exactly when its site generated code. A third crate,
//! `renamed`, depends on elide under `log`'s name and is written as for
//! `log` (and, through `use log as tracing`, for `tracing`): it compiles,
//! runs its sites and is gated like the others.
//!
//! One test per profile builds every configuration once. Features unify
//! within a build, so the fixture is a build of its own, in target
//! directories under `CARGO_TARGET_TMPDIR`: per profile (so the two tests
//! run side by side), and per set of build-time variables. Feature sets
//! coexist in one target directory, but a changed variable rebuilds the
//! macros and everything that uses them in place; so the builds without
//! variables (no gate, the gate features, precedence) share one directory
//! and the filtered build has its own, and a second run of the tests finds
//! every one of them fresh instead of rebuilding four times per profile.

#![cfg(feature = "fixtures")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use elide_tests::run_with_deadline;
use std::time::{Duration, Instant};

/// Markers of sites that the `gate` features remove.
const GATED: [&str; 13] = [
    "elide_marker_quiet_checked",
    "elide_marker_debug_arg",
    "elide_marker_trace_field",
    "elide_marker_check_cond",
    "elide_marker_telemetry_field",
    "elide_marker_counter_amount",
    "elide_marker_checked_requires",
    "elide_marker_checked_ensures",
    "elide_marker_debug_mode_block",
    "elide_marker_dep_check",
    "elide_marker_renamed_debug",
    "elide_marker_debug_span",
    "elide_marker_renamed_span",
];
/// Check-site markers (removed by `release_checks_off` in release builds).
const CHECKS: [&str; 6] = [
    "elide_marker_quiet_checked",
    "elide_marker_check_cond",
    "elide_marker_checked_requires",
    "elide_marker_checked_ensures",
    "elide_marker_debug_mode_block",
    "elide_marker_dep_check",
];

/// The build-time filter under test: `dep` off, the application at info,
/// its module `db` at trace, its module `quiet` off (rules below the crate,
/// decided by the compile-time matcher), dep's and quiet's checks and
/// quiet's telemetry off.
const FILTER: [(&str, &str); 3] = [
    (
        "ELIDE_STATIC_LEVEL",
        "info,dep=off,app::db=trace,app::quiet=off",
    ),
    ("ELIDE_STATIC_CHECKS", "dep=off,app::quiet=off"),
    ("ELIDE_STATIC_TELEMETRY", "app::quiet=off"),
];
const FILTER_REMOVES: [&str; 8] = [
    "elide_marker_quiet_checked",
    "elide_marker_dep_info",
    "elide_marker_target_dep",
    "elide_marker_debug_arg",
    "elide_marker_trace_field",
    "elide_marker_quiet_info",
    "elide_marker_quiet_telemetry",
    "elide_marker_dep_check",
];
const FILTER_KEEPS: [&str; 5] = [
    "elide_marker_checked_requires",
    "elide_marker_app_info",
    "elide_marker_db_debug",
    "elide_marker_check_cond",
    "elide_marker_telemetry_field",
];
const VARS: [&str; 4] = [
    "ELIDE_STATIC_LEVEL",
    "ELIDE_RELEASE_STATIC_LEVEL",
    "ELIDE_STATIC_CHECKS",
    "ELIDE_STATIC_TELEMETRY",
];

/// One fixture build: profile, features, variables set in the environment
/// and variables set through cargo's `[env]` configuration (`--config`).
#[derive(Default)]
struct Build<'a> {
    release: bool,
    features: &'a str,
    env: &'a [(&'a str, &'a str)],
    config_env: &'a [(&'a str, &'a str)],
}

/// A built fixture: the binary's bytes and what running it printed.
struct Built {
    bytes: Vec<u8>,
    stdout: String,
}

impl Built {
    fn has(&self, marker: &str) -> bool {
        self.bytes
            .windows(marker.len())
            .any(|w| w == marker.as_bytes())
    }

    fn present<'m>(&self, markers: &[&'m str]) -> Vec<&'m str> {
        markers.iter().copied().filter(|m| self.has(m)).collect()
    }

    fn assert_all(&self, markers: &[&str], what: &str) {
        let missing: Vec<_> = markers.iter().filter(|m| !self.has(m)).collect();
        assert!(missing.is_empty(), "{what}: missing {missing:?}");
    }

    fn assert_none(&self, markers: &[&str], what: &str) {
        let found = self.present(markers);
        assert!(found.is_empty(), "{what}: must be absent, found {found:?}");
    }

    fn assert_prints(&self, line: &str, what: &str) {
        assert!(
            self.stdout.lines().any(|l| l == line),
            "{what}: expected a line {line:?} in:\n{}",
            self.stdout
        );
    }
}

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/static-gate")
}

/// Not in the source tree: under the test target's scratch directory; one
/// per profile, and one for builds with build-time variables (all the same
/// filter but for the last, failing, build) apart from those without.
fn target_dir(b: &Build) -> PathBuf {
    let vars = if b.env.is_empty() && b.config_env.is_empty() {
        "plain"
    } else {
        "filtered"
    };
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("static-gate")
        .join(if b.release { "release" } else { "dev" })
        .join(vars)
}

fn cargo(b: &Build) -> Output {
    let mut cmd = Command::new(env!("CARGO"));
    cmd.current_dir(fixture())
        .args(["build", "--quiet", "--target-dir"])
        .arg(target_dir(b));
    if b.release {
        cmd.arg("--release");
    }
    if !b.features.is_empty() {
        cmd.args(["--features", b.features]);
    }
    // Only what the build names: not the variables of whoever runs the tests.
    for v in VARS {
        cmd.env_remove(v);
    }
    for (k, v) in b.env {
        cmd.env(k, v);
    }
    for (k, v) in b.config_env {
        cmd.arg("--config").arg(format!("env.{k}={v:?}"));
    }
    run_with_deadline(&mut cmd, Duration::from_secs(600))
}

fn build(b: &Build) -> Built {
    let start = Instant::now();
    let out = cargo(b);
    eprintln!(
        "fixture build (release={}, features={:?}, env={:?}, config={:?}): {:.1?}",
        b.release,
        b.features,
        b.env,
        b.config_env,
        start.elapsed()
    );
    assert!(
        out.status.success(),
        "fixture build failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let exe = target_dir(b)
        .join(if b.release { "release" } else { "debug" })
        .join(format!("app{}", std::env::consts::EXE_SUFFIX));
    let bytes = std::fs::read(&exe).unwrap_or_else(|e| panic!("read {}: {e}", exe.display()));
    let ran = run_with_deadline(&mut Command::new(&exe), Duration::from_secs(60));
    assert!(ran.status.success(), "fixture run failed: {ran:?}");
    Built {
        bytes,
        stdout: String::from_utf8_lossy(&ran.stdout).into_owned(),
    }
}

/// The build-time filter, then (flipped back, no `cargo clean`) the
/// features, in one profile.
fn profile(release: bool) {
    let p = if release {
        "opt-level 3"
    } else {
        "opt-level 0"
    };

    // Release builds read ELIDE_RELEASE_STATIC_LEVEL over ELIDE_STATIC_LEVEL;
    // the release build also sets the filter through `.cargo/config.toml`
    // `[env]` (here `--config env.X=..`, the same table).
    let release_filter = [
        ("ELIDE_RELEASE_STATIC_LEVEL", FILTER[0].1),
        FILTER[1],
        FILTER[2],
    ];
    let filtered = if release {
        build(&Build {
            release,
            env: &[("ELIDE_STATIC_LEVEL", "off")],
            config_env: &release_filter,
            ..Build::default()
        })
    } else {
        build(&Build {
            env: &FILTER,
            ..Build::default()
        })
    };
    let what = format!("filter, {p}");
    filtered.assert_none(&FILTER_REMOVES, &what);
    filtered.assert_all(&FILTER_KEEPS, &what);
    filtered.assert_prints("quiet_dynamic=0", &what);
    filtered.assert_prints("quiet_enabled=false", &what);
    filtered.assert_prints("static dep: level=off checks=false telemetry=true", &what);
    filtered.assert_prints("static app: level=info checks=true telemetry=true", &what);
    filtered.assert_prints(
        "static app::db: level=trace checks=true telemetry=true",
        &what,
    );

    // Without the variables every site is there (so the absences above
    // mean something).
    let control = build(&Build {
        release,
        ..Build::default()
    });
    let what = format!("no gate, {p}");
    control.assert_all(&GATED, &what);
    control.assert_all(&FILTER_REMOVES, &what);
    control.assert_all(&FILTER_KEEPS, &what);
    control.assert_prints("evaluated=5", &what);
    control.assert_prints("quiet_dynamic=1", &what);
    control.assert_prints("quiet_enabled=true", &what);
    control.assert_prints("static dep: level=trace checks=true telemetry=true", &what);
    // elide renamed to `log`: every site ran, and log's non-macro API answers.
    control.assert_prints(
        "renamed: evaluated=6 debug_enabled=true max_level=trace static_max_level=trace more=4",
        &what,
    );

    // The features (max_level_info + release_max_level_warn, checks_off,
    // telemetry_off).
    let gated = build(&Build {
        release,
        features: "gate",
        ..Build::default()
    });
    let what = format!("gate features, {p}");
    gated.assert_none(&GATED, &what);
    // Dev keeps info (max_level_info); release drops it (release_max_level_warn).
    if release {
        gated.assert_prints("evaluated=0", &what);
        gated.assert_none(
            &["elide_marker_info_release", "elide_marker_app_info"],
            &what,
        );
        control.assert_all(&["elide_marker_info_release"], "no gate, release");
        gated.assert_prints("static app: level=warn checks=false telemetry=false", &what);
        gated.assert_prints(
            "renamed: evaluated=2 debug_enabled=false max_level=trace static_max_level=warn more=3",
            &what,
        );
    } else {
        gated.assert_prints("evaluated=1", &what);
        gated.assert_all(&["elide_marker_app_info"], &what);
        gated.assert_prints("static app: level=info checks=false telemetry=false", &what);
        gated.assert_prints(
            "renamed: evaluated=5 debug_enabled=false max_level=trace static_max_level=info more=3",
            &what,
        );
    }

    // Release precedence as in `log`: max_level_info + release_max_level_trace
    // + release_checks_off.
    let prec = build(&Build {
        release,
        features: "precedence",
        ..Build::default()
    });
    let what = format!("max_level_info + release_max_level_trace, {p}");
    let verbose = [
        "elide_marker_debug_arg",
        "elide_marker_trace_field",
        "elide_marker_db_debug",
    ];
    if release {
        // The release feature decides: debug and trace sites stay; checks go.
        prec.assert_all(&verbose, &what);
        prec.assert_none(&CHECKS, &what);
        prec.assert_prints("static app: level=trace checks=false telemetry=true", &what);
    } else {
        prec.assert_none(&verbose, &what);
        prec.assert_all(&CHECKS, &what);
        prec.assert_prints("static app: level=info checks=true telemetry=true", &what);
    }
}

#[test]
fn gates_remove_sites_at_opt_level_0() {
    profile(false);

    // A malformed directive is a compile error naming the variable and the
    // bad part. Built where the filtered build just succeeded: the changed
    // variable must rebuild the macros and the crates using them in place.
    let out = cargo(&Build {
        env: &[("ELIDE_STATIC_LEVEL", "info,dep=verbose")],
        ..Build::default()
    });
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "a bad directive must fail the build");
    assert!(
        stderr.contains("ELIDE_STATIC_LEVEL=\"info,dep=verbose\": bad directive `dep=verbose`"),
        "{stderr}"
    );
}

#[test]
fn gates_remove_sites_at_opt_level_3() {
    profile(true);
}
