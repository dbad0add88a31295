//! The `log` and `tracing` bridges on real binaries (`bin/bridge_child.rs`,
//! whose dependency `chatty-dep` knows only `log` and `tracing`).

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A log file's path, removed when the test ends.
fn temp_path(name: &str) -> elide_tests::Scratch {
    elide_tests::Scratch::path(&format!("bridge-{name}"))
}

/// Runs the child in `mode` with `env`; kills it after 30 s (a loop would
/// hang or overflow the stack) and fails cleanly. Returns its stdout.
fn run(mode: &str, env: &[(&str, &str)]) -> String {
    run_with(&[mode], env)
}

fn run_with(args: &[&str], env: &[(&str, &str)]) -> String {
    let mode = args[0];
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_bridge_child"));
    cmd.args(args)
        .env_remove("RUST_LOG")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("spawn bridge_child");
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if start.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("bridge_child {mode} did not finish in 30 s");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let (mut out, mut err) = (String::new(), String::new());
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(
        status.success(),
        "bridge_child {mode}: {status}\n{out}\n{err}"
    );
    out
}

fn lines_with<'a>(text: &'a str, needle: &str) -> Vec<&'a str> {
    text.lines().filter(|l| l.contains(needle)).collect()
}

#[test]
fn dependency_log_and_tracing_records_reach_the_file_sink_under_their_namespace() {
    let path = temp_path("inbound");
    let tgt = path.to_str().unwrap();
    let out = run(
        "inbound",
        &[
            ("BRIDGE_CHILD_LOG_TGT", tgt),
            ("CHATTY_DEP_LOG_LVL", "info"),
        ],
    );
    let text = std::fs::read_to_string(&path).expect("log file");
    let warn = lines_with(&text, "log: connection reset");
    assert_eq!(warn.len(), 1, "{text}");
    // The RADICAL columns: name padded to 20, Python's level name.
    assert!(
        warn[0].contains(&format!(" : {:<20} : ", "chatty_dep"))
            && warn[0].contains(" : WARNING  : "),
        "{}",
        warn[0]
    );
    assert!(warn[0].ends_with("peer=10.0.0.1 attempt=3"), "{}", warn[0]);
    let info = lines_with(&text, "tracing: response sent");
    assert_eq!(info.len(), 1, "{text}");
    assert!(
        info[0].ends_with("bytes=512 ok=true span=request req_id=42 path=/jobs"),
        "{}",
        info[0]
    );
    // Debug records are below the namespace's level.
    assert!(!text.contains("debug detail"), "{text}");
    // log's max level follows elide's configuration, on every change.
    assert!(out.contains("log_bridge=true"), "{out}");
    assert!(out.contains("max_level=INFO"), "{out}");
    assert!(out.contains("max_level_after=TRACE"), "{out}");
}

#[test]
fn a_dependency_whose_namespace_is_off_writes_nothing() {
    let path = temp_path("off");
    let tgt = path.to_str().unwrap();
    let out = run(
        "inbound",
        &[
            ("BRIDGE_CHILD_LOG_TGT", tgt),
            ("RADICAL_LOG_LVL", "info"),
            ("CHATTY_DEP_LOG_LVL", "off"),
        ],
    );
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(!text.contains("chatty_dep"), "{text}");
    assert!(out.contains("max_level=INFO"), "{out}");
}

#[test]
fn elide_records_appear_in_a_tracing_fmt_subscriber() {
    let out = run("tracing-out", &[]);
    let lines = lines_with(&out, "elide: hello tracing");
    assert_eq!(lines.len(), 1, "{out}");
    assert!(lines[0].contains("WARN"), "{}", lines[0]);
    assert!(
        lines[0].ends_with("uid=7 state=\"RUNNING\" ratio=0.5"),
        "{}",
        lines[0]
    );
    assert!(!out.contains("not wanted"), "{out}");
    // The event has the site's file and line; a run-time site has neither.
    let place = lines[0]
        .split_once(" tests/bin/bridge_child.rs:")
        .map(|(_, rest)| rest.split(':').next().unwrap_or(""));
    assert!(
        place.is_some_and(|line| line.parse::<u32>().is_ok_and(|n| n > 0)),
        "{}",
        lines[0]
    );
    let runtime = lines_with(&out, "elide: no place").concat();
    assert!(
        runtime.contains("WARN runtime::place: elide: no place"),
        "{out}"
    );
}

#[test]
fn elide_records_appear_through_env_logger() {
    let out = run("log-out", &[("RUST_LOG", "info")]);
    let lines = lines_with(&out, "elide: hello log");
    assert_eq!(lines.len(), 1, "{out}");
    assert!(lines[0].starts_with("[WARN  bridge_child]"), "{}", lines[0]);
    assert!(lines[0].ends_with("uid=7"), "{}", lines[0]);
    assert!(!out.contains("not wanted"), "{out}");
}

#[test]
fn both_directions_of_both_bridges_do_not_loop() {
    let path = temp_path("both");
    let tgt = path.to_str().unwrap();
    let out = run(
        "both",
        &[
            ("BRIDGE_CHILD_LOG_TGT", tgt),
            ("CHATTY_DEP_LOG_LVL", "info"),
        ],
    );
    let text = std::fs::read_to_string(&path).expect("log file");
    // Each record once in elide's file...
    for needle in [
        "elide: both ways",
        "log: connection reset",
        "tracing: response sent",
    ] {
        assert_eq!(lines_with(&text, needle).len(), 1, "{needle}: {text}");
    }
    // ...elide's own record once in the fmt subscriber (through the
    // TracingSink), and the log one through elide (LogSink forwards nothing
    // back to elide's own logger).
    assert_eq!(lines_with(&out, "elide: both ways").len(), 1, "{out}");
    assert_eq!(lines_with(&out, "log: connection reset").len(), 1, "{out}");
    // The tracing event: once from the fmt layer, once re-emitted by elide.
    assert_eq!(lines_with(&out, "tracing: response sent").len(), 2, "{out}");
    // The inbound bridges left alone what the outbound sinks forwarded:
    // nothing reached elide's dispatch again.
    assert!(out.contains("nested_dropped=0\n"), "{out}");
}

#[test]
fn the_log_logger_answers_enabled_from_elides_levels_and_flushes_its_sinks() {
    let path = temp_path("queries");
    let out = run_with(&["log-queries", path.to_str().unwrap()], &[]);
    // `log::Log::enabled`, asked directly (not through `log`'s max level):
    // elide's level for the target decides.
    assert!(out.contains("app_info=true"), "{out}");
    assert!(out.contains("app_debug=false"), "{out}");
    assert!(out.contains("quiet_error=false"), "{out}");
    // `log::Log::flush` writes out what a buffering sink holds.
    assert!(out.contains("written_before_flush=false"), "{out}");
    assert!(out.contains("written_after_flush=true"), "{out}");
}

#[test]
fn tracing_events_keep_their_level_and_integer_fields_and_follow_level_changes() {
    let out = run("tracing-in", &[]);
    let line = |needle: &str| lines_with(&out, needle).concat();
    // Raised to Debug at run time: the callsite tracing already asked about
    // is asked again.
    assert!(line("same site").contains("round"), "{out}");
    assert_eq!(lines_with(&out, "same site").len(), 1, "{out}");
    // The event's message is the record's message, not a field.
    assert_eq!(
        line("an error"),
        r#"Error an error [("n", I64(-5))]"#,
        "{out}"
    );
    let debug = line("a debug");
    assert!(debug.starts_with("Debug"), "{out}");
    assert!(debug.contains(&(1i128 << 100).to_string()), "{out}");
    assert!(debug.contains(&u128::MAX.to_string()), "{out}");
    assert!(debug.contains("0.25"), "{out}");
    assert!(lines_with(&out, "a trace").is_empty(), "{out}");
    // `tracing::enabled!` gets elide's answer.
    assert!(out.contains("trace_enabled=false"), "{out}");
    assert!(out.contains("debug_enabled=true"), "{out}");
    assert!(out.contains("quiet_enabled=false"), "{out}");
    // Also when another dispatcher wants the callsite ("sometimes").
    assert!(out.contains("quiet2_enabled=false"), "{out}");
    // tracing's global level filter follows elide's.
    assert!(out.contains("tracing_max_level=debug"), "{out}");
    // A span field recorded after the span was made reaches its events.
    assert_eq!(
        line("in a span"),
        r#"Info in a span [("rows", U64(3)), ("span", Str("job")), ("id", U64(9)), ("stage", Str("load"))]"#,
        "{out}"
    );
}

#[test]
fn elide_records_reach_a_log_logger_with_their_place_and_flushes() {
    let out = run("log-out-custom", &[]);
    let line = lines_with(&out, "elide: with a place").concat();
    assert!(line.starts_with("WARN"), "{out}");
    assert!(
        line.contains("bridge_child.rs"),
        "the file is passed on: {out}"
    );
    assert!(!line.contains("None"), "so is the line: {out}");
    assert!(
        out.contains("flushed"),
        "elide::flush flushes the log logger: {out}"
    );
}
