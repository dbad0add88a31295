//! The `log` and `tracing` bridges on real binaries (`bin/bridge_child.rs`,
//! whose dependency `chatty-dep` knows only `log` and `tracing`).

use elide_tests::temp_path;
use std::process::Command;
use std::time::Duration;

/// Runs the child in `mode` with `env`; kills it after 120 s (a loop would
/// hang or overflow the stack) and fails cleanly. Returns its stdout.
fn run(mode: &str, env: &[(&str, &str)]) -> String {
    run_with(&[mode], env)
}

fn run_with(args: &[&str], env: &[(&str, &str)]) -> String {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_bridge_child"));
    cmd.args(args)
        .env_remove("RUST_LOG")
        .envs(env.iter().copied());
    let out = elide_tests::run_with_deadline(&mut cmd, Duration::from_secs(120));
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        out.status.success(),
        "bridge_child {}: {}\n{stdout}\n{stderr}",
        args[0],
        out.status
    );
    stdout.into_owned()
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
        info[0]
            .ends_with("request{req_id=42 path=/jobs}: tracing: response sent bytes=512 ok=true"),
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
    // A span field recorded after the span was made reaches its events, in
    // the span chain, not among the event's fields.
    assert_eq!(
        line("in a span"),
        r#"Info in a span [("rows", U64(3))] in job{id=9 stage=load}"#,
        "{out}"
    );
    // The message as tracing renders it, whatever form it came in.
    assert_eq!(line("args 7"), r#"Info args 7 "q" then []"#, "{out}");
    assert_eq!(
        line("a str message"),
        r#"Info a str message [("k", U64(1))]"#,
        "{out}"
    );
    assert_eq!(line("a str from log"), "Info a str from log []", "{out}");
    for record in [r#"Info  [("k", U64(2))]"#, r#"Info  [("message", U64(5))]"#] {
        assert_eq!(lines_with(&out, record), [record], "{out}");
    }
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

/// A test capture sees every level its thread logs through the bridges,
/// though the process level (Error) turns them off and `log`'s own max
/// level follows the process; other threads still get only the process
/// level, and the levels come back down when the capture ends. In a child
/// process of its own, so no neighbouring test can raise the level.
#[test]
fn a_capture_sees_every_level_of_bridged_records_from_its_thread() {
    let out = run("capture", &[]);
    assert!(out.contains("max_level_before=ERROR"), "{out}");
    for level in ["Error", "Warn", "Info", "Debug", "Trace"] {
        let line = format!("captured {level} log {}", level.to_lowercase());
        assert_eq!(lines_with(&out, &line).len(), 1, "{line}: {out}");
    }
    assert_eq!(
        lines_with(&out, "captured Warn tracing warn").len(),
        1,
        "{out}"
    );
    assert_eq!(
        lines_with(&out, "captured Trace tracing trace").len(),
        1,
        "{out}"
    );
    // A tracing callsite that was off before the capture is asked again.
    assert_eq!(
        lines_with(&out, "same site").concat(),
        "captured Info same site inside",
        "{out}"
    );
    // A thread outside the capture: only the process level, and nothing in
    // the capture.
    assert!(!out.contains("captured Warn outside"), "{out}");
    assert!(!out.contains("captured Error outside"), "{out}");
    assert_eq!(lines_with(&out, "installed").len(), 2, "{out}");
    assert!(out.contains("installed Error log error"), "{out}");
    assert!(out.contains("installed Error outside error"), "{out}");
    assert!(out.contains("max_level_after=ERROR"), "{out}");
    assert!(out.contains("tracing_max_level_after=error"), "{out}");
}

/// The value of `key=` on the child's output line starting with it.
fn number(out: &str, key: &str) -> i64 {
    out.lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no {key}: {out}"))
}

/// Records forwarded to tracing with ever new combinations of field names
/// (log records whose key-values vary, say) make a bounded number of
/// tracing callsites, and memory stays flat; the subscriber still gets each
/// record's own names and values, and past the cap the names a callsite
/// lacks as `name=value` text.
#[test]
fn forwarding_many_field_name_combinations_to_tracing_stays_bounded() {
    let out = run("tracing-shapes", &[]);
    // 262,144 combinations of 64 names at one site: a callsite per name at
    // most (one per combination before).
    assert!(number(&out, "callsites=") <= 64, "{out}");
    // Was 106 MB; the bound leaves room for allocator noise.
    assert!(number(&out, "rss_growth_kb=") < 16 * 1024, "{out}");
    assert!(
        out.contains("event shapes: message=check late k63=true k5=7 k9=\"nine\"\n"),
        "{out}"
    );
    // A site of 30,000 names: the cap holds (4,096 and an overflow callsite
    // per level)...
    assert!(
        number(&out, "callsites_wide=") <= elide::bridge::tracing::MAX_FORWARD_CALLSITES as i64 + 5,
        "{out}"
    );
    // ...and what a callsite does not declare still reaches the subscriber.
    assert!(
        out.contains("event wide: message=check wide elide.overflow_fields=w0=5 late=\"x y\"\n"),
        "{out}"
    );
    assert!(
        out.contains(
            "event elide::overflow: message=check new site elide.overflow_fields=k1=-2 target=\"other\"\n"
        ),
        "{out}"
    );
}

/// Records from `log` and `tracing` keep the file, line and module path of
/// the macro that made them (layouts, JSON and OTLP read them like an
/// elide site's); a record whose place is not `'static` has none.
#[test]
fn bridged_records_keep_their_file_line_and_module_path() {
    let out = run("place", &[]);
    let dep = "tests/fixtures/chatty-dep/src/lib.rs";
    assert_eq!(
        lines_with(&out, "log: connection reset").concat(),
        format!("log: connection reset | {dep}:8 | chatty_dep | chatty_dep"),
        "{out}"
    );
    assert_eq!(
        lines_with(&out, "tracing: response sent").concat(),
        format!("tracing: response sent | {dep}:12 | chatty_dep | chatty_dep"),
        "{out}"
    );
    assert_eq!(
        lines_with(&out, "built by hand").concat(),
        "log: built by hand | :0 | handmade | handmade",
        "{out}"
    );
    assert_eq!(
        lines_with(&out, "static place").concat(),
        "log: static place | src/inner.rs:77 | handmade::inner | handmade",
        "{out}"
    );
}

/// A mistyped level for a crate that logs through the bridges is named
/// once, as not a level, like one of elide's own namespaces, even though no
/// record of that crate ever reaches elide to look its level up.
#[test]
fn a_mistyped_level_of_a_bridged_crate_is_named_as_not_a_level() {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_bridge_child"));
    cmd.arg("quiet-dep")
        .env_clear()
        .env("CHATTY_DEP_LOG_LVL", "verbose");
    let out = elide_tests::run_with_deadline(&mut cmd, Duration::from_secs(120));
    assert!(out.status.success(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("CHATTY_DEP_LOG_LVL"))
        .collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(
        warnings[0].starts_with("elide: ignoring CHATTY_DEP_LOG_LVL=\"verbose\": not a level"),
        "{stderr}"
    );
}

/// After `elide::init()`, an application's own registry with elide's layer
/// installs with `set_global_default`, or with `try_init`, whose error only
/// says that the `log` logger is taken (tracing-subscriber's `tracing-log`
/// feature, on by default, is on in this build): the subscriber is
/// installed, elide stays the `log` logger, and each record of `log`,
/// `tracing` and elide arrives once. Its `init()` panics on that error; the
/// guide says to use the other two.
#[test]
fn a_registry_with_elides_layer_installs_after_init_with_try_init_or_set_global_default() {
    for how in ["set_global_default", "try_init"] {
        let path = temp_path(how);
        let out = run_with(
            &["registry-after-init", how],
            &[
                ("BRIDGE_CHILD_LOG_TGT", path.to_str().unwrap()),
                ("BRIDGE_CHILD_LOG_LVL", "info"),
                ("CHATTY_DEP_LOG_LVL", "info"),
            ],
        );
        assert!(out.contains("log_bridge=true"), "{how}: {out}");
        if how == "try_init" {
            assert!(
                out.contains("try_init=err: attempted to set a logger"),
                "{out}"
            );
        }
        let text = std::fs::read_to_string(&path).expect("log file");
        let reset = lines_with(&text, "log: connection reset");
        assert!(
            reset.len() == 1 && reset[0].contains(&format!(" : {:<20} : ", "chatty_dep")),
            "{how}: {text}"
        );
        for needle in [
            "log: connection reset peer=10.0.0.1 attempt=3",
            "tracing: response sent bytes=512 ok=true",
            "elide: own record",
        ] {
            assert_eq!(
                lines_with(&text, needle).len(),
                1,
                "{how}: {needle}\n{text}"
            );
        }
    }
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_bridge_child"));
    cmd.args(["registry-after-init", "init"]).env_clear();
    let out = elide_tests::run_with_deadline(&mut cmd, Duration::from_secs(120));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains("failed to set global default subscriber: SetLoggerError"),
        "{stderr}"
    );
}

/// The other order: the registry's `init()` (tracing-log on), then
/// `elide::init()`, which leaves tracing-log's `LogTracer` as the `log`
/// logger. No panic, and `log` records reach elide through the layer under
/// their own target with their place, not as events of target `log` with
/// `log.*` fields (their key-values `LogTracer` does not carry).
#[test]
fn log_records_through_log_tracer_keep_their_target_and_place() {
    let path = temp_path("log-tracer");
    let out = run(
        "registry-before-init",
        &[
            ("BRIDGE_CHILD_LOG_TGT", path.to_str().unwrap()),
            ("BRIDGE_CHILD_LOG_FMT", "json"),
            ("BRIDGE_CHILD_LOG_LVL", "info"),
            ("CHATTY_DEP_LOG_LVL", "info"),
        ],
    );
    assert!(out.contains("log_bridge=false"), "{out}");
    let text = std::fs::read_to_string(&path).expect("log file");
    let reset = lines_with(&text, "log: connection reset");
    assert_eq!(reset.len(), 1, "{text}");
    let json: serde_json::Value = serde_json::from_str(reset[0]).unwrap();
    assert_eq!(json["target"], "chatty_dep", "{json}");
    assert_eq!(
        json["file"], "tests/fixtures/chatty-dep/src/lib.rs",
        "{json}"
    );
    assert_eq!(json["line"], 8, "{json}");
    assert!(!reset[0].contains("log."), "{json}");
    assert_eq!(
        lines_with(&text, "tracing: response sent").len(),
        1,
        "{text}"
    );
    assert_eq!(lines_with(&text, "elide: own record").len(), 1, "{text}");
}
