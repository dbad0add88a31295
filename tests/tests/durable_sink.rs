//! Durable sinks as a program sees them, in child processes: every record
//! on disk after the guard is dropped, and failing outputs that neither
//! panic nor hang.

use elide_tests::temp_path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

fn child() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sink_child"))
}

/// `key=value` from the child's report line.
fn stat(text: &str, key: &str) -> u64 {
    let line = text
        .lines()
        .find(|l| l.starts_with("write_errors="))
        .unwrap_or_else(|| panic!("no stats line in {text:?}"));
    line.split_whitespace()
        .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no {key} in {line:?}"))
}

/// Asserts that the log holds exactly `seq=0..n`, each once, in order.
fn assert_all_records(path: &std::path::Path, n: u64) {
    let text = std::fs::read_to_string(path).expect("read log");
    let seqs: Vec<u64> = text
        .lines()
        .filter_map(|l| l.rsplit(' ').next()?.strip_prefix("seq=")?.parse().ok())
        .collect();
    assert_eq!(seqs.len() as u64, n, "records on disk");
    assert!(seqs.iter().copied().eq(0..n), "records out of order");
}

/// An exit that lost nothing says nothing: the exit flush reports dropped
/// records only when there were some.
fn assert_quiet(out: &Output) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.is_empty(), "a clean exit printed: {stderr}");
}

fn reports(stderr: &str, name: &str) -> usize {
    stderr
        .lines()
        .filter(|l| l.contains(&format!("writing to {name} failed")))
        .count()
}

fn run(cmd: &mut Command) -> Output {
    elide_tests::run_with_deadline(cmd, Duration::from_secs(120))
}

#[test]
fn every_record_is_on_disk_after_the_guard_drops_and_the_process_exits() {
    let path = temp_path("exit");
    let out = run(child().arg("durable-exit").arg(&path).arg("50000"));
    assert!(out.status.success(), "{out:?}");
    assert_all_records(&path, 50_000);
    assert_quiet(&out);
}

#[test]
fn process_exit_without_a_guard_still_writes_every_record() {
    for sink in ["async-durable", "buffered-file"] {
        let path = temp_path(&format!("no-guard-{sink}"));
        let out = run(child()
            .arg("exit-no-guard")
            .arg(&path)
            .arg(sink)
            .arg("20000"));
        assert!(out.status.success(), "{sink}: {out:?}");
        assert_all_records(&path, 20_000);
        assert_quiet(&out);
    }
}

#[cfg(unix)]
#[test]
fn a_forked_child_neither_hangs_on_the_async_sink_nor_freezes_every() {
    let path = temp_path("fork");
    // The deadline is the test's: a hang in the child or the parent fails it.
    let out = run(child().arg("fork").arg(&path));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    assert!(stdout.contains("child_waited=true status=0"), "{stdout}");
    let every: u64 = stdout
        .lines()
        .find_map(|l| l.strip_prefix("child_every="))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no child_every line in {stdout}"));
    // 300 ms of hits at one per 10 ms: a frozen clock lets only one through.
    assert!(every >= 3, "every = 10ms passed {every} hits in the child");
    assert_all_records(&path, 20);
}

#[test]
fn panic_hook_flushes_before_the_process_dies() {
    let path = temp_path("panic");
    // Without the hook the abort loses the last batches (checked by hand
    // with the child's `no-hook` argument); a backtrace would only slow the
    // child down and give the writer time to finish anyway.
    let out = run(child()
        .arg("panic-hook")
        .arg(&path)
        .arg("1000")
        .env("RUST_BACKTRACE", "0"));
    assert!(!out.status.success(), "the child aborts");
    assert!(String::from_utf8_lossy(&out.stderr).contains("boom"));
    assert_all_records(&path, 1_000);
}

#[test]
fn dev_full_is_counted_and_reported_once_async() {
    let out = run(child().arg("dev-full-async"));
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stat(&stdout, "written"), 0);
    assert_eq!(stat(&stdout, "dropped"), 0);
    assert_eq!(stat(&stdout, "failed"), 2_000);
    assert!(stat(&stdout, "write_errors") >= 1);
    assert_eq!(reports(&stderr, "/dev/full"), 1, "stderr: {stderr}");
}

#[test]
fn dev_full_is_counted_and_reported_once_sync() {
    let out = run(child().arg("dev-full-sync"));
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stat(&stdout, "written"), 0);
    assert_eq!(stat(&stdout, "failed"), 2_000);
    assert!(stat(&stdout, "write_errors") >= 1);
    assert_eq!(reports(&stderr, "/dev/full"), 1, "stderr: {stderr}");
}

#[test]
fn closed_pipe_is_counted_and_reported_once() {
    let mut proc = child()
        .arg("closed-pipe")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn sink_child");
    drop(proc.stdout.take()); // the reader goes away
    let out = elide_tests::wait_with_deadline(proc, Duration::from_secs(60), "closed-pipe");
    assert!(out.status.success(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stat(&stderr, "failed") > 0, "stderr: {stderr}");
    assert_eq!(stat(&stderr, "written") + stat(&stderr, "failed"), 2_000);
    assert_eq!(stat(&stderr, "dropped"), 0);
    assert_eq!(reports(&stderr, "stdout"), 1, "stderr: {stderr}");
}

/// Runs `sink_child args` under strace and counts its successful
/// `fdatasync` calls. `None` where strace is missing or may not trace (the
/// caller then passes without checking, as it says on stderr).
fn datasyncs(args: &[&std::ffi::OsStr]) -> Option<usize> {
    let trace = temp_path("strace-out");
    let spawned = Command::new("strace")
        .args(["-f", "-qq", "-e", "trace=fdatasync", "-o"])
        .arg(&trace)
        .arg(env!("CARGO_BIN_EXE_sink_child"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn();
    let Ok(proc) = spawned else {
        eprintln!("skipped: strace is not installed");
        return None;
    };
    let out =
        elide_tests::wait_with_deadline(proc, Duration::from_secs(60), "sink_child under strace");
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() && stderr.contains("ptrace") {
        eprintln!("skipped: strace may not trace here: {stderr}");
        return None;
    }
    assert!(out.status.success(), "{args:?}: {out:?}");
    let text = std::fs::read_to_string(&trace).expect("read the trace");
    Some(
        text.lines()
            .filter(|l| l.contains("fdatasync(") && l.trim_end().ends_with("= 0"))
            .count(),
    )
}

/// Durable means synced: the synchronous sink syncs every record of a
/// lone thread before `emit` returns, and the async durable file syncs
/// what it wrote. Counted with strace, where there is one: no other test
/// short of a power cut tells a skipped `fdatasync`.
#[test]
fn durable_sinks_call_fdatasync() {
    // (child mode, records, fewest syncs)
    for (mode, records, syncs) in [("sync-durable-log", 20, 20), ("durable-exit", 1000, 1)] {
        let path = temp_path(&format!("strace-{mode}"));
        let count = records.to_string();
        let Some(n) = datasyncs(&[mode.as_ref(), path.as_os_str(), count.as_ref()]) else {
            return;
        };
        assert!(
            n >= syncs,
            "{mode}: {n} fdatasync calls for {records} records"
        );
        assert_all_records(&path, records);
    }
}
