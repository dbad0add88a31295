//! A program built with `panic = "abort"` (the fixture
//! `fixtures/panic-abort`, built once per test process in its own target
//! directory under `CARGO_TARGET_TMPDIR`: the panic strategy applies to a
//! whole build) that calls `elide::install_panic_hook`, logs 1,000 records
//! to a file and then panics while a record is being emitted.
//!
//! What a user relies on: the hook flushes what was logged before the
//! panic, in every `LOG_MODE`, before the process aborts. A panic in a
//! logged value's `Debug` is reported as that, not as a sink's panic; when
//! a sink itself panics, the other sinks are still flushed (the panicking
//! one is not called again), also when it panics on an async writer
//! thread; a sink whose flush never returns delays the abort by a bounded
//! time only, and the others are flushed meanwhile.

#![cfg(feature = "fixtures")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;
use std::time::Duration;

use elide_tests::{build_fixture, run_with_deadline, Scratch};

/// Every `LOG_MODE`.
const MODES: [&str; 4] = ["buffered", "async", "durable", "sync-durable"];

/// The fixture's binary, built once per test process.
fn app() -> &'static Path {
    static APP: OnceLock<PathBuf> = OnceLock::new();
    APP.get_or_init(|| {
        let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("panic-abort");
        build_fixture("panic-abort", "", &target, "panic-abort")
    })
}

/// Runs the fixture (`how` it panics) with `LOG_MODE=mode`, logging to
/// `file`; its output.
fn run(how: &str, mode: &str, file: &Path) -> Output {
    let mut cmd = Command::new(app());
    cmd.arg(how)
        .env_clear()
        .env("RADICAL_LOG_TGT", file)
        .env("RADICAL_LOG_MODE", mode)
        .env("RADICAL_LOG_LVL", "info");
    run_with_deadline(&mut cmd, Duration::from_secs(60))
}

/// The 1,000 records logged before the panic that are in `file`.
fn records_on_disk(file: &Path) -> usize {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    (0..1000)
        .filter(|i| text.contains(&format!(" record {i}\n")))
        .count()
}

/// Runs `how` in every mode: per mode, the records on disk and stderr.
fn each_mode(how: &str) -> Vec<(&'static str, usize, String)> {
    in_modes(how, &MODES)
}

/// Runs `how` in `modes`: per mode, the records on disk and stderr.
fn in_modes(how: &str, modes: &[&'static str]) -> Vec<(&'static str, usize, String)> {
    let dir = Scratch::dir("panic-abort");
    modes
        .iter()
        .map(|mode| {
            let file = dir.join(format!("{mode}.log"));
            let out = run(how, mode, &file);
            let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
            assert!(
                !out.status.success(),
                "{mode}: the fixture did not abort: {out:?}"
            );
            (*mode, records_on_disk(&file), stderr)
        })
        .collect()
}

#[test]
fn a_panic_in_a_logged_values_debug_keeps_every_record_logged_before_it() {
    // Per mode: records on disk, the panic printed, "inside a sink" said.
    let seen: Vec<_> = each_mode("value")
        .into_iter()
        .map(|(mode, n, stderr)| {
            let printed = stderr.contains("Unprintable's Debug panicked");
            (mode, n, printed, stderr.contains("inside a sink"))
        })
        .collect();
    assert_eq!(seen, MODES.map(|m| (m, 1000, true, false)));
}

#[test]
fn a_panicking_sink_leaves_the_other_sinks_flushed() {
    // Per mode: records on disk, the panic printed as a sink's.
    let seen: Vec<_> = each_mode("sink")
        .into_iter()
        .map(|(mode, n, stderr)| {
            let printed = stderr.contains("the Tripwire sink panicked");
            (mode, n, printed && stderr.contains("inside a sink"))
        })
        .collect();
    assert_eq!(seen, MODES.map(|m| (m, 1000, true)));
}

#[test]
fn a_sink_panicking_on_an_async_writer_thread_leaves_the_other_sinks_flushed() {
    // Per mode: records on disk, the panic printed as a sink's, and no
    // flush left waiting (the async sink of that writer is not awaited).
    let seen: Vec<_> = each_mode("writer")
        .into_iter()
        .map(|(mode, n, stderr)| {
            let printed = stderr.contains("the Tripwire sink panicked");
            let waited = stderr.contains("did not finish flushing");
            (mode, n, printed && stderr.contains("inside a sink"), waited)
        })
        .collect();
    assert_eq!(seen, MODES.map(|m| (m, 1000, true, false)));
}

#[test]
fn a_flush_that_never_returns_delays_the_abort_but_not_the_other_sinks() {
    let seen = in_modes("stuck", &["async"]);
    let (_, n, stderr) = &seen[0];
    assert_eq!(*n, 1000, "{stderr}");
    assert!(
        stderr.contains("1 of 2 sinks did not finish flushing"),
        "{stderr}"
    );
}
