//! Shutdown as a program sees it, in child processes: forked children that
//! exit at once, a `check!` failing inside a sink, a sink whose `flush`
//! panics. Each child runs under a time limit and is killed past it, so a
//! hang fails the test instead of stalling the suite.

use elide_tests::temp_path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use elide_tests::run_with_deadline;

fn child() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sink_child"))
}

/// `key=value` from the child's stdout.
fn stat(out: &Output, key: &str) -> u64 {
    let text = String::from_utf8_lossy(&out.stdout);
    text.split_whitespace()
        .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no {key} in {out:?}"))
}

/// 40 children forked while two threads of the parent log into each kind
/// of sink log a line and leave `exit` within 2 s: neither their emit nor
/// the exit handler waits on a lock or flag that a thread of the parent
/// held at the fork.
#[cfg(unix)]
#[test]
fn forked_children_exit_promptly_whatever_the_sink() {
    for kind in ["stderr", "file", "durable", "sync-durable", "async"] {
        let path = temp_path(&format!("fork-exit-{kind}"));
        let out = run_with_deadline(
            child()
                .arg("fork-exit")
                .arg(kind)
                .arg(&path)
                .stderr(Stdio::null()),
            Duration::from_secs(60),
        );
        assert!(out.status.success(), "{kind}: {out:?}");
        assert_eq!(stat(&out, "hung"), 0, "{kind}: children hung in exit");
        assert_eq!(stat(&out, "exited"), 40, "{kind}");
    }
}

/// An async sink has no writer thread in a forked child: the child's
/// record is dropped, not queued where nothing would write it, and the
/// child says so once on its stderr; the parent's file holds none of the
/// children's lines.
#[cfg(unix)]
#[test]
fn a_forked_childs_records_into_an_async_sink_are_dropped_and_reported() {
    let path = temp_path("fork-child-async");
    let out = run_with_deadline(
        child()
            .arg("fork-exit")
            .arg("async")
            .arg(&path)
            .arg("parent-quiet"),
        Duration::from_secs(60),
    );
    assert!(out.status.success(), "{out:?}");
    assert_eq!(stat(&out, "exited"), 40);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let reports = stderr
        .lines()
        .filter(|l| l.contains("(in a forked child)") && l.contains("the record is dropped"))
        .count();
    assert_eq!(reports, 40, "one report per child: {stderr}");
    let text = std::fs::read_to_string(&path).expect("read log");
    assert!(text.lines().any(|l| l.contains(": parent thread ")));
    assert!(!text.lines().any(|l| l.contains(": child ")), "{text}");
}

/// A forked child's console lines are written (one raw write each, past
/// the stream's lock that a parent thread may have held at the fork), on
/// the stream the sink was made for.
#[cfg(unix)]
#[test]
fn a_forked_childs_console_lines_reach_its_stream() {
    for stream in ["stdout", "stderr"] {
        let out = run_with_deadline(
            child()
                .arg("fork-exit")
                .arg(stream)
                .arg("-")
                .arg("parent-quiet"),
            Duration::from_secs(60),
        );
        assert!(out.status.success(), "{stream}: {out:?}");
        assert_eq!(stat(&out, "exited"), 40, "{stream}");
        let (mine, other) = match stream {
            "stdout" => (&out.stdout, &out.stderr),
            _ => (&out.stderr, &out.stdout),
        };
        let count = |bytes: &[u8]| {
            String::from_utf8_lossy(bytes)
                .lines()
                .filter(|l| l.contains(" : child ") && l.contains(" record n="))
                .count()
        };
        assert_eq!(count(mine), 40, "{stream}: one line per child");
        assert_eq!(count(other), 0, "{stream}: nothing on the other stream");
    }
}

/// A forked child still writes what it logged itself (its exit flushes the
/// buffered file sink it could use; the synchronous durable sink writes
/// and syncs the child's line on its own, the parent's commit being out of
/// its reach), and not the parent's buffered lines a second time.
#[cfg(unix)]
#[test]
fn a_forked_child_writes_its_own_lines_at_exit() {
    for kind in ["file", "sync-durable"] {
        let path = temp_path(&format!("fork-child-logs-{kind}"));
        let out = run_with_deadline(
            child()
                .arg("fork-exit")
                .arg(kind)
                .arg(&path)
                .arg("parent-quiet"),
            Duration::from_secs(60),
        );
        assert!(out.status.success(), "{kind}: {out:?}");
        assert_eq!(stat(&out, "hung"), 0, "{kind}");
        let text = std::fs::read_to_string(&path).expect("read log");
        let children = text.lines().filter(|l| l.contains(": child ")).count();
        assert_eq!(children, 40, "{kind}: each child's own line is in the file");
        let parent: Vec<&str> = text
            .lines()
            .filter(|l| l.contains(": parent thread "))
            .collect();
        let unique: std::collections::HashSet<_> = parent
            .iter()
            .map(|l| l.split(" : ").nth(5).unwrap_or(l))
            .collect();
        assert_eq!(
            unique.len(),
            parent.len(),
            "{kind}: no parent line written twice"
        );
    }
}

/// An async sink whose writer thread cannot start (the child's
/// `RUST_MIN_STACK` asks for a stack larger than any address space) drops
/// and counts every record, and neither a `Block` caller, `flush` nor the
/// exit waits for the missing writer; the failure is reported once.
#[test]
fn an_async_sink_without_its_writer_thread_drops_and_counts_instead_of_waiting() {
    for form in ["wrapped", "bytes"] {
        for policy in ["block", "drop"] {
            let what = format!("{form} {policy}");
            let out = run_with_deadline(
                child()
                    .args(["no-writer", form, policy])
                    .env("RUST_MIN_STACK", (1u64 << 60).to_string()),
                Duration::from_secs(30),
            );
            assert!(out.status.success(), "{what}: {out:?}");
            assert_eq!(stat(&out, "written"), 0, "{what}");
            assert_eq!(stat(&out, "dropped"), 100, "{what}");
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(
                stderr.matches("(writer thread) failed").count(),
                1,
                "{what}: {stderr}"
            );
        }
    }
}

/// A failing `check!` inside a sink's `emit` (default policy: panic) gives
/// control back to the caller: no deadlock on the sink's own lock, no panic
/// out of the log call; the panic is counted and reported.
#[test]
fn a_failing_check_inside_a_sink_returns_control() {
    let out = run_with_deadline(child().arg("check-in-sink"), Duration::from_secs(30));
    assert!(out.status.success(), "{out:?}");
    assert_eq!(stat(&out, "sink_panics"), 1, "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("flushed"), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("check failed"),
        "the failure is reported: {stderr}"
    );
}

/// A sink whose `flush` panics is contained on its own: `elide::flush()`,
/// `set_sinks`, the guard and the exit handler neither panic nor stop at
/// it, so the file sink beside it keeps all 100 lines.
#[test]
fn a_panicking_flush_leaves_the_other_sinks_flushed() {
    for end in ["flush", "set-sinks", "guard", "exit"] {
        let path = temp_path(&format!("flush-panics-{end}"));
        let out = run_with_deadline(
            child().arg("flush-panics").arg(&path).arg(end),
            Duration::from_secs(30),
        );
        assert!(out.status.success(), "{end}: {out:?}");
        let text = std::fs::read_to_string(&path).expect("read log");
        assert_eq!(text.lines().count(), 100, "{end}: lines of the file sink");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let reports = stderr
            .lines()
            .filter(|l| l.contains("panicked in flush"))
            .count();
        assert_eq!(reports, 1, "{end}: reported once: {stderr}");
    }
}

/// `key=value` from a report line.
/// A sink that panics with a payload whose own drop panics (directly
/// installed, wrapped in an async sink, or as an async sink's output)
/// neither panics the caller nor ends the writer thread: every panic is
/// counted, the file sink next to it gets every record, and the process
/// exits normally whether the last flush is explicit or the exit's.
#[test]
fn a_panic_payload_that_panics_when_dropped_stays_contained() {
    for form in ["direct", "wrapped", "bytes"] {
        for end in ["flush", "exit"] {
            let what = format!("{form} {end}");
            let path = temp_path(&format!("bomb-{form}-{end}"));
            let out = run_with_deadline(
                child().arg("bomb").arg(&path).args([form, end]),
                Duration::from_secs(30),
            );
            assert!(out.status.success(), "{what}: {out:?}");
            let text = std::fs::read_to_string(&path).expect("read log");
            assert_eq!(text.lines().count(), 20, "{what}: lines of the file sink");
            // A record per emit for a sink; at least one batch's write for
            // the output under the rings.
            let least = if form == "bytes" { 1 } else { 20 };
            if end == "flush" {
                assert!(stat(&out, "sink_panics") >= least, "{what}: {out:?}");
            }
        }
    }
}

fn report_value(line: &str, key: &str) -> u64 {
    line.split_whitespace()
        .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no {key} in {line:?}"))
}

/// The number after `key ` in the exit flush's stderr report.
fn after_word(line: &str, key: &str) -> u64 {
    line.split(key)
        .nth(1)
        .and_then(|rest| rest.trim_start().split([',', ' ']).next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no number after {key:?} in {line:?}"))
}

/// Threads that keep logging while the process exits: what the exit flush
/// cannot write is counted as dropped (and reported once on stderr, with
/// the sink's counts at that moment), so written + dropped + failed =
/// emitted at exit, and the file holds exactly the written records. Under
/// `Overflow::Drop` records are also dropped before the exit: the report
/// counts only those dropped while the exit flush ran. The same holds for
/// the channel form (`wrapped`: an async sink in front of a file sink).
#[cfg(unix)]
#[test]
fn records_from_threads_running_at_exit_are_counted() {
    for policy in ["block", "drop", "wrapped"] {
        let path = temp_path(&format!("exit-busy-{policy}"));
        let out = run_with_deadline(
            child().arg("exit-busy").arg(&path).arg(policy),
            Duration::from_secs(60),
        );
        assert!(out.status.success(), "{policy}: {out:?}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let line = stdout
            .lines()
            .find(|l| l.starts_with("emitted_before="))
            .unwrap_or_else(|| panic!("{policy}: no report in {stdout:?}"));
        let before = report_value(line, "emitted_before");
        let after = report_value(line, "emitted_after");
        let written = report_value(line, "written");
        let dropped = report_value(line, "dropped");
        let failed = report_value(line, "failed");
        let accounted = written + dropped + failed;
        // Each of the 3 threads may be inside one call between the two reads.
        assert!(
            before <= accounted && accounted <= after + 3,
            "{policy}: accounted {accounted}, emitted between {before} and {after}: {line}"
        );
        let text = std::fs::read_to_string(&path).unwrap();
        let records = text
            .lines()
            .filter(|l| l.ends_with(" : busy") || l.contains(" : busy seq="))
            .count();
        assert_eq!(
            records as u64, written,
            "{policy}: records in the file vs written"
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        let reports: Vec<&str> = stderr
            .lines()
            .filter(|l| l.contains("emitted while the exit flush ran were dropped"))
            .collect();
        assert_eq!(reports.len(), 1, "{policy}: {stderr}");
        let report = reports[0];
        let late: u64 = report
            .split(" records emitted")
            .next()
            .and_then(|head| head.rsplit(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{policy}: no count in {report}"));
        let at_exit_dropped = after_word(report, ", dropped ");
        assert_eq!(
            after_word(report, "written "),
            written,
            "{policy}: {report}"
        );
        assert_eq!(
            after_word(report, ", failed "),
            failed,
            "{policy}: {report}"
        );
        // Threads still running after the report only add drops.
        assert!(at_exit_dropped <= dropped, "{policy}: {report} vs {line}");
        assert!(late > 0 && late <= at_exit_dropped, "{policy}: {report}");
        if policy == "drop" {
            assert!(
                late < at_exit_dropped,
                "{policy}: no record was dropped before the exit: {report}"
            );
        }
    }
}

/// An output that hangs for good: `flush` gives up after the shutdown
/// timeout and says on stderr how many records are not yet written (the
/// one in the writer's hands and those queued), and the process still
/// exits; the same for a wrapped sink stuck in `emit`.
#[test]
fn a_flush_that_gives_up_says_how_many_records_are_left() {
    for form in ["bytes", "wrapped"] {
        let left = 5;
        let out = run_with_deadline(
            child().arg("stuck-flush").arg(form),
            Duration::from_secs(30),
        );
        assert!(out.status.success(), "{form}: {out:?}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains("flush returned; dropped=0"),
            "{form}: {stdout}"
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        let first = stderr
            .lines()
            .find(|l| l.contains("flush gave up"))
            .unwrap_or_else(|| panic!("{form}: no report in {stderr}"));
        assert!(
            first.ends_with(&format!(
                "flush gave up after 100ms; {left} records not yet written"
            )),
            "{form}: {first}"
        );
    }
}

/// Behind an async sink, a sink that panics on every record costs its
/// records, each counted as failed and as a sink panic, and one line on
/// stderr saying so, not one per record.
#[test]
fn panics_of_a_wrapped_sink_are_counted_and_reported_once() {
    let out = run_with_deadline(
        child().arg("panicky-wrapped").arg("50"),
        Duration::from_secs(60),
    );
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("sink_panics=50 written=0 failed=50"),
        "{stdout}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr.matches("the wrapped sink panicked in emit").count(),
        1,
        "{stderr}"
    );
}

/// A sink that panics on every record is contained, and printed once per
/// sink: two such sinks over 1,000 records give two panic messages, not
/// thousands of lines; every panic is counted.
#[test]
fn contained_sink_panics_are_printed_once_per_sink() {
    let out = run_with_deadline(
        child()
            .arg("panicky-emit")
            .arg("1000")
            .env("RUST_BACKTRACE", "1"),
        Duration::from_secs(60),
    );
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("sink_panics=2000"), "{stdout}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.matches("emit of sink A").count(), 1, "{stderr}");
    assert_eq!(stderr.matches("emit of sink B").count(), 1, "{stderr}");
    assert!(
        stderr.lines().count() < 200,
        "{} lines of stderr",
        stderr.lines().count()
    );
}

/// A logged value whose `Debug` panics, in every kind of sink: the panic
/// is contained (the caller goes on, the records around it are written,
/// each panic is counted) and printed once, as the value's, not a sink's.
#[test]
fn a_panicking_debug_is_contained_and_reported_as_the_values() {
    for kind in ["stderr", "file", "async", "durable", "sync-durable"] {
        let path = temp_path(&format!("panicky-value-{kind}"));
        let out = run_with_deadline(
            child().arg("panicky-value").arg(kind).arg(&path),
            Duration::from_secs(60),
        );
        assert!(out.status.success(), "{kind}: {out:?}");
        assert_eq!(stat(&out, "sink_panics"), 100, "{kind}: {out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let text = match kind {
            "stderr" => stderr.to_string(),
            _ => std::fs::read_to_string(&path).expect("read log"),
        };
        let good = (0..100)
            .filter(|i| text.contains(&format!("good {i}\n")))
            .count();
        assert_eq!(good, 100, "{kind}: the good records: {text}");
        assert_eq!(
            stderr.matches("Unprintable's Debug panicked").count(),
            1,
            "{kind}: {stderr}"
        );
        assert!(
            stderr.contains("in the Debug or Display of a value being logged")
                && !stderr.contains("inside a sink"),
            "{kind}: {stderr}"
        );
    }
}

/// A console line never lands inside a line the application writes while
/// holding stdout's lock: the sink takes the same lock (only a forked
/// child, where a lost thread may hold it for good, writes around it).
#[test]
fn console_lines_wait_for_the_applications_stdout_lock() {
    let out = run_with_deadline(child().arg("stdout-locked"), Duration::from_secs(60));
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert_eq!(lines[0], "app part one, app part two", "{stdout}");
    assert!(lines[1].ends_with("elide line"), "{stdout}");
}
