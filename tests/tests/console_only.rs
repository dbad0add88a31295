//! elide built without its default features (`default-features = false`),
//! as a program that logs only to the console builds it, and with only the
//! feature `file`, as one that also writes plain log files. The fixture
//! `fixtures/console-only` is built once per feature set, each in its own
//! target directory under `CARGO_TARGET_TMPDIR` (features unify within a
//! build, so it cannot be a member of this workspace), and run with a
//! cleared environment and chosen variables.
//!
//! What a user relies on: the parts left out (the asynchronous machinery,
//! the `.prof` sink, file sinks, the JSON layout, `RUST_LOG` parsing) are
//! not linked at all; an environment that asks for one (`LOG_MODE=async` or
//! `durable`, `PROFILE=1`, a file in `LOG_TGT`, `LOG_FMT=json`, `RUST_LOG`)
//! gets one warning naming the variable, the value, the missing feature and
//! the fallback, and every record still reaches its destination.

#![cfg(feature = "fixtures")]

use std::path::{Path, PathBuf};
use std::process::Command;

use elide_tests::{build_fixture, run_with_deadline};
use std::sync::OnceLock;
use std::time::Duration;

/// Which build of the fixture a test runs.
#[derive(Clone, Copy)]
enum Build {
    /// No feature of elide: the console only.
    Console,
    /// Only the feature `file`: plain log files besides the console.
    File,
}

/// The fixture's binary for `build`, built once per test process.
fn app(build: Build) -> &'static Path {
    static CONSOLE: OnceLock<PathBuf> = OnceLock::new();
    static FILE: OnceLock<PathBuf> = OnceLock::new();
    let (cell, dir, features) = match build {
        Build::Console => (&CONSOLE, "console-only", ""),
        Build::File => (&FILE, "console-only-file", "file"),
    };
    cell.get_or_init(|| {
        let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join(dir);
        build_fixture("console-only", features, &target, "console-only")
    })
}

/// A fresh scratch directory for one run, removed when the test ends.
fn scratch() -> elide_tests::Scratch {
    elide_tests::Scratch::dir("console-only")
}

/// One run of the fixture's `build` with only `vars` set, in `dir`; its
/// stderr.
fn run_app(build: Build, dir: &Path, vars: &[(&str, &str)]) -> String {
    let mut cmd = Command::new(app(build));
    cmd.env_clear().envs(vars.iter().copied()).current_dir(dir);
    let out = run_with_deadline(&mut cmd, Duration::from_secs(60));
    assert!(out.status.success(), "fixture run failed: {out:?}");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Both records are in the file, each once.
fn assert_both_logged(file: &Path) {
    let text =
        std::fs::read_to_string(file).unwrap_or_else(|e| panic!("read {}: {e}", file.display()));
    for line in ["console-only first", "console-only second"] {
        assert_eq!(text.matches(line).count(), 1, "{line:?} in:\n{text}");
    }
}

fn warnings(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.starts_with("elide: "))
        .collect()
}

#[test]
fn log_mode_async_falls_back_to_buffered_writes_with_one_warning() {
    let dir = scratch();
    let stderr = run_app(
        Build::File,
        &dir,
        &[
            ("CONSOLE_ONLY_LOG_TGT", "app.log"),
            ("CONSOLE_ONLY_LOG_MODE", "async"),
        ],
    );
    assert_eq!(
        warnings(&stderr),
        [
            "elide: ignoring CONSOLE_ONLY_LOG_MODE=\"async\": log mode async needs elide's cargo \
             feature `async`, which this build lacks; using buffered (synchronous file writes)"
        ],
        "stderr:\n{stderr}"
    );
    assert_both_logged(&dir.join("app.log"));
}

#[test]
fn log_mode_durable_falls_back_to_sync_durable_with_one_warning() {
    let dir = scratch();
    let stderr = run_app(
        Build::File,
        &dir,
        &[
            ("CONSOLE_ONLY_LOG_TGT", "app.log"),
            ("RADICAL_DEFAULT_LOG_MODE", " Durable "),
        ],
    );
    assert_eq!(
        warnings(&stderr),
        [
            "elide: ignoring RADICAL_DEFAULT_LOG_MODE=\" Durable \": log mode durable needs \
             elide's cargo feature `async`, which this build lacks; using sync-durable \
             (synchronous file writes)"
        ],
        "stderr:\n{stderr}"
    );
    assert_both_logged(&dir.join("app.log"));
}

#[test]
fn console_and_synchronous_modes_need_no_warning() {
    let dir = scratch();
    let stderr = run_app(
        Build::File,
        &dir,
        &[
            ("CONSOLE_ONLY_LOG_TGT", "stderr,app.log"),
            ("CONSOLE_ONLY_LOG_MODE", "sync-durable"),
        ],
    );
    assert_eq!(warnings(&stderr), Vec::<&str>::new(), "stderr:\n{stderr}");
    assert_eq!(stderr.matches("console-only first").count(), 1, "{stderr}");
    assert_both_logged(&dir.join("app.log"));
}

/// Whether the binary of `build` holds `text` (its symbol table names
/// every function linked).
fn links(build: Build) -> impl Fn(&str) -> bool {
    let bytes = std::fs::read(app(build)).expect("read the fixture binary");
    move |s: &str| bytes.windows(s.len()).any(|w| w == s.as_bytes())
}

/// The symbol table of the console-only binary names no part of the
/// asynchronous machinery, the `.prof` sink, the file sinks, the JSON
/// layout or the `RUST_LOG` parser: they are not linked, not merely unused.
#[test]
fn links_no_asynchronous_machinery_files_json_or_rust_log() {
    let has = links(Build::Console);
    // The control: the program does link elide's console sink.
    assert!(has("ConsoleSink"), "symbols of the binary are not readable");
    for absent in [
        "crossbeam_channel",
        "AsyncSink",
        "async_rings",
        "RingQueue",
        "ProfSink",
        "FileSink",
        "DurableFile",
        "open_append",
        "JsonEscaped",
        "fields_object",
        "Directives",
    ] {
        assert!(!has(absent), "{absent} is linked");
    }
    // With `file`, the file sinks are there, and still nothing asynchronous.
    let has = links(Build::File);
    assert!(has("FileSink"), "the file build links no FileSink");
    assert!(!has("AsyncSink"), "the file build links AsyncSink");
}

#[test]
fn file_target_falls_back_to_stderr_with_one_warning() {
    let dir = scratch();
    let stderr = run_app(
        Build::Console,
        &dir,
        &[
            ("CONSOLE_ONLY_LOG_TGT", "app.log, sub/b.log"),
            // Not read without `file`: no warning of its own.
            ("CONSOLE_ONLY_LOG_MODE", "durable"),
        ],
    );
    assert_eq!(
        warnings(&stderr),
        [
            "elide: ignoring CONSOLE_ONLY_LOG_TGT=\"app.log, sub/b.log\": a file target needs \
             elide's cargo feature `file`, which this build lacks; using stderr for the file \
             targets"
        ],
        "stderr:\n{stderr}"
    );
    // Each record once on stderr (one console sink for both files).
    for line in ["console-only first", "console-only second"] {
        assert_eq!(stderr.matches(line).count(), 1, "{line:?} in:\n{stderr}");
    }
    assert!(!dir.join("app.log").exists(), "a log file was created");
    assert!(!dir.join("sub").exists(), "a log directory was created");
}

#[test]
fn log_fmt_json_falls_back_to_the_radical_layout_with_one_warning() {
    let dir = scratch();
    let stderr = run_app(Build::Console, &dir, &[("CONSOLE_ONLY_LOG_FMT", " JSON ")]);
    assert_eq!(
        warnings(&stderr),
        [
            "elide: ignoring CONSOLE_ONLY_LOG_FMT=\" JSON \": the json line format needs elide's \
             cargo feature `json`, which this build lacks; using radical"
        ],
        "stderr:\n{stderr}"
    );
    let line = stderr
        .lines()
        .find(|l| l.contains("console-only first"))
        .unwrap_or_else(|| panic!("no record in:\n{stderr}"));
    assert!(
        line.contains(" : ERROR    : console-only first"),
        "not the RADICAL layout: {line:?}"
    );
}

#[test]
fn rust_log_is_not_read_and_warns_once() {
    let dir = scratch();
    // Read, `off` would silence both records.
    let stderr = run_app(Build::Console, &dir, &[("RUST_LOG", "off")]);
    assert_eq!(
        warnings(&stderr),
        [
            "elide: ignoring RUST_LOG=\"off\": RUST_LOG directives need elide's cargo feature \
             `rust-log`, which this build lacks; using the LOG_LVL variables and the built-in \
             default"
        ],
        "stderr:\n{stderr}"
    );
    for line in ["console-only first", "console-only second"] {
        assert_eq!(stderr.matches(line).count(), 1, "{line:?} in:\n{stderr}");
    }
    // An empty RUST_LOG asks for nothing: no warning.
    let stderr = run_app(Build::Console, &dir, &[("RUST_LOG", " ")]);
    assert_eq!(warnings(&stderr), Vec::<&str>::new(), "stderr:\n{stderr}");
}

#[test]
fn profile_on_turns_telemetry_on_without_a_prof_file_and_warns_once() {
    let dir = scratch();
    let stderr = run_app(
        Build::Console,
        &dir,
        &[
            ("CONSOLE_ONLY_PROFILE", "yes"),
            ("CONSOLE_ONLY_PROFILE_DIR", "profiles"),
        ],
    );
    assert_eq!(
        warnings(&stderr),
        [
            "elide: ignoring CONSOLE_ONLY_PROFILE=\"yes\": a .prof file needs elide's cargo feature \
             `prof`, which this build lacks; using telemetry without a .prof file (events reach \
             only sinks added through the API)"
        ],
        "stderr:\n{stderr}"
    );
    // Logging is unaffected, and no profile directory or file appears.
    assert_eq!(stderr.matches("console-only second").count(), 1, "{stderr}");
    assert!(!dir.join("profiles").exists(), "a .prof directory was made");
}
