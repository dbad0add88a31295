//! elide built without its default features (`default-features = false`),
//! as a program that logs only to the console or to plain files builds it.
//! The fixture `fixtures/console-only` is built once, in its own target
//! directory under `CARGO_TARGET_TMPDIR` (features unify within a build, so
//! it cannot be a member of this workspace), and run with a cleared
//! environment and chosen variables.
//!
//! What a user relies on: the asynchronous machinery and the `.prof` sink
//! are not linked at all; an environment that asks for them (`LOG_MODE=async`
//! or `durable`, `PROFILE=1`) gets one warning naming the variable, the
//! value, the missing feature and the fallback, and every record still
//! reaches its destination.

use std::path::{Path, PathBuf};
use std::process::Command;

use elide_tests::run_with_deadline;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

/// The fixture's binary, built once per test process.
fn app() -> &'static Path {
    static APP: OnceLock<PathBuf> = OnceLock::new();
    APP.get_or_init(|| {
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/console-only");
        let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("console-only");
        let mut cmd = Command::new(env!("CARGO"));
        cmd.current_dir(&fixture)
            .args(["build", "--quiet", "--target-dir"])
            .arg(&target);
        let out = run_with_deadline(cmd, Duration::from_secs(600));
        assert!(
            out.status.success(),
            "fixture build failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        target
            .join("debug")
            .join(format!("console-only{}", std::env::consts::EXE_SUFFIX))
    })
}

/// A fresh scratch directory for one run.
fn scratch() -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "elide-console-only-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// One run of the fixture with only `vars` set, in `dir`; its stderr.
fn run_app(dir: &Path, vars: &[(&str, &str)]) -> String {
    let mut cmd = Command::new(app());
    cmd.env_clear().envs(vars.iter().copied()).current_dir(dir);
    let out = run_with_deadline(cmd, Duration::from_secs(60));
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
        &dir,
        &[
            ("RADICAL_LOG_TGT", "app.log"),
            ("RADICAL_LOG_MODE", "async"),
        ],
    );
    assert_eq!(
        warnings(&stderr),
        [
            "elide: ignoring RADICAL_LOG_MODE=\"async\": log mode async needs elide's cargo \
             feature `async`, which this build lacks; using buffered (synchronous file writes)"
        ],
        "stderr:\n{stderr}"
    );
    assert_both_logged(&dir.join("app.log"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn log_mode_durable_falls_back_to_sync_durable_with_one_warning() {
    let dir = scratch();
    let stderr = run_app(
        &dir,
        &[
            ("RADICAL_LOG_TGT", "app.log"),
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
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn console_and_synchronous_modes_need_no_warning() {
    let dir = scratch();
    let stderr = run_app(
        &dir,
        &[
            ("RADICAL_LOG_TGT", "stderr,app.log"),
            ("RADICAL_LOG_MODE", "sync-durable"),
        ],
    );
    assert_eq!(warnings(&stderr), Vec::<&str>::new(), "stderr:\n{stderr}");
    assert_eq!(stderr.matches("console-only first").count(), 1, "{stderr}");
    assert_both_logged(&dir.join("app.log"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The symbol table of the binary names no part of the asynchronous
/// machinery or the `.prof` sink: they are not linked, not merely unused.
#[test]
fn links_no_asynchronous_machinery() {
    let bytes = std::fs::read(app()).expect("read the fixture binary");
    let has = |s: &str| bytes.windows(s.len()).any(|w| w == s.as_bytes());
    // The control: the program does link elide's synchronous sinks.
    assert!(has("ConsoleSink"), "symbols of the binary are not readable");
    for absent in [
        "crossbeam_channel",
        "AsyncSink",
        "async_rings",
        "RingQueue",
        "ProfSink",
    ] {
        assert!(!has(absent), "{absent} is linked");
    }
}

#[test]
fn profile_on_turns_telemetry_on_without_a_prof_file_and_warns_once() {
    let dir = scratch();
    let stderr = run_app(
        &dir,
        &[
            ("RADICAL_PROFILE", "yes"),
            ("RADICAL_PROFILE_DIR", "profiles"),
        ],
    );
    assert_eq!(
        warnings(&stderr),
        [
            "elide: ignoring RADICAL_PROFILE=\"yes\": a .prof file needs elide's cargo feature \
             `prof`, which this build lacks; using telemetry without a .prof file (events reach \
             only sinks added through the API)"
        ],
        "stderr:\n{stderr}"
    );
    // Logging is unaffected, and no profile directory or file appears.
    assert_eq!(stderr.matches("console-only second").count(), 1, "{stderr}");
    assert!(!dir.join("profiles").exists(), "a .prof directory was made");
    let _ = std::fs::remove_dir_all(&dir);
}
