//! Environment configuration, end to end: a real binary (`env-probe`) run
//! with a cleared environment and chosen variables. The test process's own
//! environment is never changed.

use std::ffi::OsString;
use std::fs;
use std::os::unix::ffi::OsStringExt;
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// One finished run of the probe, in its own temporary working directory.
struct Run {
    stdout: String,
    stderr: String,
    dir: PathBuf,
}

impl Run {
    /// The value of `probe key=value` for the first report that has it.
    fn get(&self, key: &str) -> &str {
        self.all(key).first().copied().unwrap_or_else(|| {
            panic!(
                "no {key} in output:\n{}\nstderr:\n{}",
                self.stdout, self.stderr
            )
        })
    }
    /// Every value of `key`, one per `report` command.
    fn all(&self, key: &str) -> Vec<&str> {
        let prefix = format!("probe {key}=");
        self.stdout
            .lines()
            .filter_map(|l| l.strip_prefix(&prefix))
            .collect()
    }
    /// Lines on stderr that are elide's configuration warnings.
    fn warnings(&self) -> Vec<&str> {
        self.stderr
            .lines()
            .filter(|l| l.starts_with("elide: ignoring"))
            .collect()
    }
}

impl Drop for Run {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}

fn temp_dir() -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "elide-env-test-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn probe_os(vars: &[(&str, OsString)], args: &[&str]) -> Run {
    let (run, success) = probe_os_status(vars, args);
    assert!(success, "probe failed: {}\n{}", run.stdout, run.stderr);
    run
}

/// Runs the probe; whether it exited successfully is the caller's to judge.
fn probe_os_status(vars: &[(&str, OsString)], args: &[&str]) -> (Run, bool) {
    let dir = temp_dir();
    let mut child = Command::new(env!("CARGO_BIN_EXE_env-probe"))
        .env_clear()
        .envs(vars.iter().map(|(k, v)| (k, v)))
        .args(args)
        .current_dir(&dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run env-probe");
    // A probe that hangs (a start-up that blocks) fails here, not the suite.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let pipes = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let read = |mut r: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = r.read_to_end(&mut v);
            v
        })
    };
    let (stdout, stderr) = (read(Box::new(pipes.0)), read(Box::new(pipes.1)));
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait env-probe") {
            break status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("env-probe {args:?} hung for 60 s with {vars:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    let out = std::process::Output {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    };
    let run = Run {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        dir,
    };
    (run, out.status.success())
}

fn probe(vars: &[(&str, &str)], args: &[&str]) -> Run {
    let vars: Vec<(&str, OsString)> = vars.iter().map(|(k, v)| (*k, OsString::from(v))).collect();
    probe_os(&vars, args)
}

fn report(vars: &[(&str, &str)]) -> Run {
    probe(vars, &["init", "report"])
}

#[test]
fn specific_namespace_beats_general() {
    let r = report(&[
        ("RADICAL_ASYNCFLOW_LOG_LVL", "info"),
        ("RADICAL_LOG_LVL", "debug"),
    ]);
    assert_eq!(
        r.get("engine.level"),
        "info",
        "debug stays off under RADICAL_ASYNCFLOW"
    );
    assert_eq!(
        r.get("pilot.level"),
        "debug",
        "RADICAL_LOG_LVL still covers other packages"
    );
    assert_eq!(
        r.get("app.level"),
        "error",
        "a crate outside RADICAL_ is not affected"
    );
    assert!(r.warnings().is_empty(), "{}", r.stderr);
}

#[test]
fn empty_variable_shadows_the_general_one() {
    let r = report(&[
        ("RADICAL_ASYNCFLOW_LOG_LVL", ""),
        ("RADICAL_LOG_LVL", "debug"),
    ]);
    assert_eq!(
        r.get("engine.level"),
        "error",
        "empty = unset, goes to the default"
    );
    assert_eq!(r.get("pilot.level"), "debug");
    let r = report(&[
        ("RADICAL_ASYNCFLOW_LOG_LVL", ""),
        ("RADICAL_LOG_LVL", "debug"),
        ("RADICAL_DEFAULT_LOG_LVL", "warning"),
    ]);
    assert_eq!(r.get("engine.level"), "warn");
}

#[test]
fn default_variable_applies_when_nothing_more_specific_is_set() {
    let r = report(&[("RADICAL_DEFAULT_LOG_LVL", "info")]);
    assert_eq!(r.get("engine.level"), "info");
    assert_eq!(r.get("pilot.level"), "info");
    assert_eq!(
        r.get("app.level"),
        "info",
        "the default variable is process-wide"
    );
    let r = report(&[
        ("RADICAL_DEFAULT_LOG_LVL", "info"),
        ("RADICAL_LOG_LVL", "trace"),
    ]);
    assert_eq!(r.get("engine.level"), "trace");
    assert_eq!(r.get("app.level"), "info");
    let r = report(&[]);
    assert_eq!(r.get("engine.level"), "error", "RADICAL's built-in default");
}

#[test]
fn debug_flag_cascade() {
    let cases: [(&[(&str, &str)], &str); 5] = [
        (&[("RADICAL_ASYNCFLOW_DEBUG", "1")], "true"),
        (&[("RADICAL_DEBUG", "yes")], "true"),
        (
            &[("RADICAL_ASYNCFLOW_DEBUG", "0"), ("RADICAL_DEBUG", "1")],
            "false",
        ),
        (&[], "false"),
        (&[("RADICAL_ASYNCFLOW_DEBUG", " ON ")], "true"),
    ];
    for (vars, expected) in cases {
        let r = report(vars);
        assert_eq!(r.get("engine.debug"), expected, "check ran, {vars:?}");
        assert_eq!(r.get("engine.debug_mode"), expected, "debug_for, {vars:?}");
        assert_eq!(r.get("app.debug"), "false", "{vars:?}");
    }
}

#[test]
fn log_tgt_writes_to_stdout_and_a_file() {
    let r = probe(
        &[
            ("ENV_PROBE_LOG_TGT", "stdout,./x.log"),
            ("RADICAL_LOG_LVL", "info"),
        ],
        &["init", "emit"],
    );
    let file = fs::read_to_string(r.dir.join("x.log")).expect("x.log in the working directory");
    for out in [&r.stdout, &file] {
        assert!(out.contains("probe error line"), "{out}");
        assert!(out.contains("probe info line"), "{out}");
        assert!(!out.contains("probe debug line"), "{out}");
    }
    assert!(
        !r.stderr.contains("probe info line"),
        "stderr is not a target: {}",
        r.stderr
    );
}

#[test]
fn log_tgt_defaults_to_stderr_and_null_silences() {
    let r = probe(&[("RADICAL_LOG_LVL", "info")], &["init", "emit"]);
    assert!(r.stderr.contains("probe info line"), "{}", r.stderr);
    assert!(!r.stdout.contains("probe info line"));
    let r = probe(
        &[("RADICAL_LOG_LVL", "info"), ("ENV_PROBE_LOG_TGT", "null")],
        &["init", "emit", "report"],
    );
    assert!(
        !r.stderr.contains("probe") && !r.stdout.contains("line"),
        "{}",
        r.stderr
    );
    assert_eq!(
        r.get("engine.level"),
        "off",
        "no sink wants anything: sites are off"
    );
}

#[test]
fn log_dir_and_dot_target_with_a_root() {
    let r = probe(
        &[
            ("RADICAL_LOG_TGT", "."),
            ("RADICAL_LOG_LVL", "info"),
            ("RADICAL_DEFAULT_LOG_DIR", "logs/run1"),
        ],
        &["ns:radical.asyncflow", "emit"],
    );
    let file = fs::read_to_string(r.dir.join("logs/run1/radical.asyncflow.log")).unwrap();
    assert!(file.contains("probe info line"), "{file}");
}

/// `burst seq=<i>` lines of a log, in file order.
fn burst_seqs(text: &str) -> Vec<u64> {
    text.lines()
        .filter_map(|l| {
            l.split_once(" : burst seq=")
                .map(|(_, n)| n.parse().unwrap())
        })
        .collect()
}

#[test]
fn log_mode_makes_file_targets_async_or_durable_and_loses_nothing_at_exit() {
    const N: u64 = 1_000;
    for mode in ["async", "durable", "sync-durable", "Durable "] {
        let burst = format!("burst:{N}");
        let r = probe(
            &[
                ("ENV_PROBE_LOG_TGT", "./x.log"),
                ("ENV_PROBE_LOG_MODE", mode),
                ("RADICAL_LOG_LVL", "info"),
            ],
            &["init", "emit", &burst, "describe:radical"],
        );
        assert!(r.warnings().is_empty(), "{mode}: {}", r.stderr);
        let want = mode.trim().to_lowercase();
        let line = r
            .stdout
            .lines()
            .find(|l| l.trim_start().starts_with("LOG_MODE"))
            .unwrap_or_else(|| panic!("no LOG_MODE in describe:\n{}", r.stdout));
        assert!(
            line.contains(&want) && line.contains("from ENV_PROBE_LOG_MODE"),
            "{line}"
        );
        // The guard dropped at the end of main drained the queue: every
        // line is in the file once the process has exited.
        let file = fs::read_to_string(r.dir.join("x.log")).expect("x.log");
        assert!(file.contains("probe info line"), "{mode}: {file}");
        assert!(!file.contains("probe debug line"), "{mode}");
        assert_eq!(burst_seqs(&file), (0..N).collect::<Vec<_>>(), "{mode}");
    }
}

#[test]
fn log_mode_follows_the_root_cascade_and_creates_directories() {
    let r = probe(
        &[
            ("RADICAL_LOG_TGT", "."),
            ("RADICAL_LOG_MODE", "sync-durable"),
            ("RADICAL_ASYNCFLOW_LOG_MODE", "durable"),
            ("RADICAL_LOG_LVL", "info"),
            ("RADICAL_DEFAULT_LOG_DIR", "logs/run2"),
        ],
        &[
            "ns:radical.asyncflow",
            "burst:100",
            "describe:radical.asyncflow",
        ],
    );
    assert!(
        r.stdout.lines().any(|l| l.contains("LOG_MODE ")
            && l.contains(" durable ")
            && l.contains("from RADICAL_ASYNCFLOW_LOG_MODE")),
        "{}",
        r.stdout
    );
    let file = fs::read_to_string(r.dir.join("logs/run2/radical.asyncflow.log")).unwrap();
    assert_eq!(burst_seqs(&file), (0..100).collect::<Vec<_>>());
}

#[test]
fn bad_log_mode_warns_once_and_keeps_the_buffered_file() {
    let r = probe(
        &[
            ("ENV_PROBE_LOG_TGT", "./x.log"),
            ("ENV_PROBE_LOG_MODE", "fsync-always"),
            ("RADICAL_LOG_LVL", "info"),
        ],
        &["init", "emit", "reload", "emit", "describe:radical"],
    );
    let warnings = r.warnings();
    assert_eq!(warnings.len(), 1, "{}", r.stderr);
    for part in ["ENV_PROBE_LOG_MODE", "fsync-always", "buffered"] {
        assert!(warnings[0].contains(part), "{}", warnings[0]);
    }
    let file = fs::read_to_string(r.dir.join("x.log")).expect("x.log");
    assert_eq!(file.matches("probe info line").count(), 2, "{file}");
    assert!(
        r.stdout
            .contains("ignored ENV_PROBE_LOG_MODE=\"fsync-always\""),
        "{}",
        r.stdout
    );
}

#[test]
fn unwritable_log_target_warns_once_and_falls_back_to_stderr() {
    let dir = temp_dir();
    let blocker = dir.join("plain-file");
    fs::write(&blocker, "not a directory").unwrap();
    let bad = blocker.join("sub/x.log");
    let bad = bad.to_str().unwrap();
    let r = probe(
        &[("ENV_PROBE_LOG_TGT", bad), ("RADICAL_LOG_LVL", "info")],
        &["init", "emit", "reload", "emit"],
    );
    let warnings = r.warnings();
    assert_eq!(warnings.len(), 1, "{}", r.stderr);
    assert!(warnings[0].contains("ENV_PROBE_LOG_TGT") && warnings[0].contains(bad));
    assert!(warnings[0].contains("stderr"), "{}", warnings[0]);
    assert_eq!(
        r.stderr.matches("probe info line").count(),
        2,
        "{}",
        r.stderr
    );
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_values_warn_exactly_once_and_fall_back() {
    let r = probe(
        &[
            ("RADICAL_LOG_LVL", "verbose"),
            ("RADICAL_DEBUG", "maybe"),
            ("RADICAL_PROFILE", "2"),
        ],
        &["init", "report", "report", "reload", "report"],
    );
    assert_eq!(r.all("engine.level"), ["error"; 3]);
    assert_eq!(r.all("engine.debug"), ["false"; 3]);
    assert_eq!(r.get("pilot.level"), "error");
    let w = r.warnings();
    assert_eq!(w.len(), 3, "{}", r.stderr);
    let lvl = w.iter().find(|l| l.contains("RADICAL_LOG_LVL")).unwrap();
    assert!(
        lvl.contains("\"verbose\"") && lvl.contains("using error"),
        "{lvl}"
    );
    let dbg = w.iter().find(|l| l.contains("RADICAL_DEBUG")).unwrap();
    assert!(
        dbg.contains("\"maybe\"") && dbg.contains("using false"),
        "{dbg}"
    );
    assert!(
        w.iter().any(|l| l.contains("RADICAL_PROFILE=\"2\"")),
        "{w:?}"
    );
}

#[test]
fn out_of_range_negative_and_mixed_case_levels() {
    for (value, expected, warns) in [
        ("-1", "error", 1),
        ("70", "error", 1),
        ("35", "error", 1),
        ("DeBuG", "debug", 0),
        ("  Warning\t", "warn", 0),
        ("20", "info", 0),
        ("60", "off", 0),
        ("OFF", "off", 0),
        ("debug_3", "trace", 0),
        ("5", "trace", 0),
    ] {
        let r = report(&[("RADICAL_LOG_LVL", value)]);
        assert_eq!(r.get("engine.level"), expected, "{value:?}");
        assert_eq!(r.warnings().len(), warns, "{value:?}: {}", r.stderr);
    }
}

#[test]
fn non_utf8_values_warn_and_fall_back() {
    let bad = OsString::from_vec(b"de\xffbug".to_vec());
    let r = probe_os(
        &[
            ("RADICAL_LOG_LVL", bad.clone()),
            ("RADICAL_DEFAULT_LOG_LVL", "info".into()),
            ("RADICAL_ASYNCFLOW_DEBUG", bad),
        ],
        &["init", "report"],
    );
    assert_eq!(r.get("engine.level"), "info");
    assert_eq!(r.get("engine.debug"), "false");
    let w = r.warnings();
    assert_eq!(w.len(), 2, "{}", r.stderr);
    assert!(w.iter().all(|l| l.contains("not valid UTF-8")), "{w:?}");
}

#[test]
fn legacy_verbose_only_when_log_lvl_is_unset_or_empty() {
    let r = report(&[("RADICAL_VERBOSE", "debug")]);
    assert_eq!(r.get("engine.level"), "debug");
    let r = report(&[
        ("RADICAL_LOG_LVL", ""),
        ("RADICAL_ASYNCFLOW_VERBOSE", "info"),
    ]);
    assert_eq!(r.get("engine.level"), "info");
    let r = report(&[
        ("RADICAL_LOG_LVL", "warn"),
        ("RADICAL_ASYNCFLOW_VERBOSE", "trace"),
    ]);
    assert_eq!(r.get("engine.level"), "warn");
}

#[test]
fn root_namespace_controls_the_application() {
    let vars = [
        ("RADICAL_ASYNCFLOW_LOG_LVL", "debug"),
        ("RADICAL_ASYNCFLOW_DEBUG", "1"),
    ];
    let r = probe(&vars, &["ns:radical.asyncflow", "report"]);
    assert_eq!(r.get("app.level"), "debug");
    assert_eq!(r.get("app.debug"), "true");
    assert_eq!(r.get("asyncflow.debug_for"), "true");
    let r = probe(&vars, &["init", "report"]);
    assert_eq!(
        r.get("app.level"),
        "error",
        "without init_ns the app is not under RADICAL_ASYNCFLOW"
    );
    assert_eq!(r.get("app.debug"), "false");
    // The crate's own variables still come first.
    let r = probe(
        &[
            ("RADICAL_ASYNCFLOW_LOG_LVL", "debug"),
            ("ENV_PROBE_LOG_LVL", "warn"),
        ],
        &["ns:radical.asyncflow", "report"],
    );
    assert_eq!(r.get("app.level"), "warn");
}

#[test]
fn debug_mode_follows_the_rules_for_the_root_namespace() {
    let r = probe(
        &[],
        &[
            "ns:radical.asyncflow",
            "report",
            "api-debug-for:radical.asyncflow",
            "report",
        ],
    );
    assert_eq!(r.all("asyncflow.debug_for"), ["false", "true"]);
    // A rule for another namespace is not the root's.
    let r = probe(
        &[],
        &[
            "ns:radical.asyncflow",
            "api-debug-for:radical.pilot",
            "report",
        ],
    );
    assert_eq!(r.get("asyncflow.debug_for"), "false");
}

#[test]
fn init_ns_after_sites_resolved_rewrites_them() {
    let r = probe(
        &[("RADICAL_ASYNCFLOW_LOG_LVL", "trace")],
        &["report", "ns:radical.asyncflow", "report"],
    );
    assert_eq!(r.all("app.level"), ["error", "trace"]);
}

#[test]
fn init_ns_after_the_first_record_moves_the_sinks_to_the_roots_target() {
    let r = probe(
        &[
            ("RADICAL_ASYNCFLOW_LOG_TGT", "./app.log"),
            ("RADICAL_LOG_LVL", "info"),
        ],
        &["emit", "ns:radical.asyncflow", "emit"],
    );
    let file = fs::read_to_string(r.dir.join("app.log")).expect("app.log once the root is set");
    assert_eq!(file.matches("probe info line").count(), 1, "{file}");
    // The record before the root went to the default target.
    assert_eq!(
        r.stderr.matches("probe info line").count(),
        1,
        "{}",
        r.stderr
    );
}

#[test]
fn snapshot_is_taken_once_and_reload_rereads() {
    let r = probe(
        &[("RADICAL_LOG_LVL", "info")],
        &[
            "init",
            "report",
            "set:RADICAL_LOG_LVL=trace",
            "report",
            "reload",
            "report",
        ],
    );
    assert_eq!(r.all("engine.level"), ["info", "info", "trace"]);
}

#[test]
fn reload_reinstalls_log_targets() {
    let r = probe(
        &[("RADICAL_LOG_LVL", "info")],
        &[
            "init",
            "emit",
            "set:ENV_PROBE_LOG_TGT=stdout,y.log",
            "reload",
            "emit",
        ],
    );
    assert_eq!(
        r.stderr.matches("probe info line").count(),
        1,
        "{}",
        r.stderr
    );
    assert_eq!(
        r.stdout.matches("probe info line").count(),
        1,
        "{}",
        r.stdout
    );
    let file = fs::read_to_string(r.dir.join("y.log")).unwrap();
    assert_eq!(file.matches("probe info line").count(), 1, "{file}");
}

#[test]
fn reload_reopens_a_log_file_that_was_moved_away() {
    let r = probe(
        &[("RADICAL_LOG_LVL", "info"), ("ENV_PROBE_LOG_TGT", "y.log")],
        &["init", "emit", "rotate:y.log", "reload", "emit"],
    );
    let old = fs::read_to_string(r.dir.join("y.log.1")).unwrap();
    let new = fs::read_to_string(r.dir.join("y.log")).unwrap_or_default();
    assert_eq!(old.matches("probe info line").count(), 1, "{old}");
    assert_eq!(new.matches("probe info line").count(), 1, "reopened: {new}");
}

#[test]
fn a_later_init_ns_with_the_same_targets_keeps_the_installed_sinks() {
    let r = probe(
        &[
            ("RADICAL_LOG_LVL", "info"),
            ("RADICAL_LOG_TGT", "stderr,y.log"),
        ],
        &[
            "ns:radical",
            "sink-ids",
            "ns:radical.other",
            "sink-ids",
            "emit",
        ],
    );
    let ids = r.all("sink-ids");
    assert_eq!(ids.len(), 2, "{}", r.stdout);
    assert_eq!(ids[0], ids[1], "nothing to change, nothing reopened");
    let file = fs::read_to_string(r.dir.join("y.log")).unwrap();
    assert_eq!(file.matches("probe info line").count(), 1, "{file}");
}

#[test]
fn describe_says_when_the_sinks_were_set_through_the_api() {
    let from_env = probe(&[], &["init", "describe:radical"]);
    assert!(
        !from_env.stdout.contains("set through the API"),
        "{}",
        from_env.stdout
    );
    let r = probe(&[], &["init", "api-no-sinks", "describe:radical"]);
    assert!(
        r.stdout.contains("0 sink(s) set through the API"),
        "{}",
        r.stdout
    );
}

#[test]
fn log_mode_from_the_environment_is_used_for_file_targets() {
    // `sync-durable`: each line is on disk before the call returns, so a process
    // that aborts (no flush, no exit handlers) still leaves it in the file.
    // A buffered file would lose it.
    let vars: Vec<(&str, OsString)> = [
        ("RADICAL_LOG_LVL", "info"),
        ("ENV_PROBE_LOG_TGT", "y.log"),
        ("ENV_PROBE_LOG_MODE", "sync-durable"),
    ]
    .iter()
    .map(|(k, v)| (*k, OsString::from(v)))
    .collect();
    let (r, success) = probe_os_status(&vars, &["init", "emit", "abort"]);
    assert!(!success, "the probe aborts");
    let file = fs::read_to_string(r.dir.join("y.log")).unwrap_or_default();
    assert_eq!(file.matches("probe info line").count(), 1, "{file}");
}

#[test]
fn a_panic_of_the_application_is_not_reported_as_contained() {
    let r = probe(&[], &["init", "user-panic", "emit"]);
    assert!(r.stderr.contains("probe user panic"), "{}", r.stderr);
    assert!(!r.stderr.contains("contained"), "{}", r.stderr);
}

#[test]
fn sinks_chosen_through_the_api_survive_a_reload_even_when_empty() {
    let r = probe(
        &[("RADICAL_LOG_LVL", "info")],
        &["init", "api-no-sinks", "reload", "count-sinks", "emit"],
    );
    assert!(r.stdout.contains("probe sinks=0"), "{}", r.stdout);
    assert!(!r.stderr.contains("probe info line"), "{}", r.stderr);
}

#[test]
fn api_beats_environment() {
    let r = probe(
        &[("RADICAL_ASYNCFLOW_LOG_LVL", "trace")],
        &["init", "report", "api-level:warn", "report"],
    );
    assert_eq!(r.all("engine.level"), ["trace", "warn"]);
}

#[test]
fn the_default_level_applies_only_where_nothing_else_decides() {
    let r = probe(&[], &["init", "report", "api-default:info", "report"]);
    assert_eq!(r.all("engine.level"), ["error", "info"]);
    // A variable, or the API, still decides over the default.
    let r = probe(
        &[("RADICAL_ASYNCFLOW_LOG_LVL", "warn")],
        &[
            "init",
            "api-default:trace",
            "report",
            "api-level:debug",
            "report",
        ],
    );
    assert_eq!(r.all("engine.level"), ["warn", "debug"]);
}

#[test]
fn profile_flag_and_dir() {
    let r = report(&[
        ("RADICAL_PROFILE", "true"),
        ("ENV_PROBE_PROFILE_DIR", "prof"),
    ]);
    assert_eq!(r.get("engine.profile"), "true");
    assert!(
        r.get("profile_dir").ends_with("/prof"),
        "{}",
        r.get("profile_dir")
    );
    let r = report(&[("RADICAL_ASYNCFLOW_PROFILE", "0"), ("RADICAL_PROFILE", "1")]);
    assert_eq!(r.get("engine.profile"), "false");
    let r = report(&[]);
    assert_eq!(r.get("engine.profile"), "false");
    assert_eq!(
        PathBuf::from(r.get("profile_dir")),
        r.dir.canonicalize().unwrap()
    );
}

#[test]
fn profile_on_writes_a_prof_file_in_profile_dir() {
    let r = probe(
        &[("RADICAL_PROFILE", "1"), ("ENV_PROBE_PROFILE_DIR", "prof")],
        // `emit` logs an error, an info and a debug line: log records,
        // which the `.prof` file does not take.
        &["init", "emit", "telemetry"],
    );
    let text = std::fs::read_to_string(r.dir.join("prof/env-probe.prof")).expect(".prof written");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "#time,event,comp,thread,uid,state,msg");
    let events: Vec<&str> = lines[1..]
        .iter()
        .map(|l| l.split(',').nth(1).unwrap_or(""))
        .collect();
    assert_eq!(events, ["sync_abs", "probe.event", "END"], "{text}");
    assert!(lines[1].contains(",sync_abs,"), "{text}");
    assert!(
        lines
            .iter()
            .any(|l| l.contains(",probe.event,") && l.contains(",u.1,")),
        "{text}"
    );
    assert!(lines.last().unwrap().contains(",END,"), "{text}");

    // Off: no file, and the event's fields are never built.
    let r = probe(&[("ENV_PROBE_PROFILE_DIR", "prof")], &["init", "telemetry"]);
    assert!(!r.dir.join("prof/env-probe.prof").exists());

    // A PROFILE variable no site reads (another tool's) creates no file.
    let r = probe(
        &[("SOMETOOL_PROFILE", "1"), ("ENV_PROBE_PROFILE_DIR", "prof")],
        &["init", "telemetry"],
    );
    assert!(
        !r.dir.join("prof").exists(),
        "no .prof for SOMETOOL_PROFILE"
    );
}

#[test]
fn describe_names_the_deciding_variable() {
    let r = probe(
        &[
            ("RADICAL_ASYNCFLOW_LOG_LVL", "info"),
            ("RADICAL_LOG_LVL", "debug"),
            ("RADICAL_DEBUG", "1"),
            ("RADICAL_PROFILE", "sometimes"),
        ],
        &["init", "describe:radical_asyncflow::engine"],
    );
    let line = |key: &str| {
        r.stdout
            .lines()
            .find(|l| l.trim_start().starts_with(key))
            .unwrap_or_else(|| panic!("{key} missing:\n{}", r.stdout))
            .to_owned()
    };
    let lvl = line("LOG_LVL");
    assert!(
        lvl.contains("info") && lvl.contains("from RADICAL_ASYNCFLOW_LOG_LVL"),
        "{lvl}"
    );
    assert!(line("DEBUG").contains("from RADICAL_DEBUG"));
    assert!(line("PROFILE").contains("built-in default"));
    assert!(
        r.stdout
            .contains("ignored RADICAL_PROFILE=\"sometimes\": not a flag"),
        "{}",
        r.stdout
    );
    assert!(line("LOG_TGT").contains("stderr"));
    assert!(r
        .stdout
        .contains("looked at RADICAL_ASYNCFLOW_ENGINE_LOG_LVL, RADICAL_ASYNCFLOW_LOG_LVL"));
}

#[test]
fn description_accessors_give_what_the_table_shows() {
    let r = probe(
        &[
            ("RADICAL_ASYNCFLOW_LOG_LVL", "debug"),
            ("RADICAL_PROFILE", "sometimes"),
        ],
        &[
            "init",
            "describe:radical_asyncflow::engine",
            "entries:radical_asyncflow::engine",
        ],
    );
    let entry = |key: &str| {
        r.stdout
            .lines()
            .find(|l| l.starts_with(&format!("entry {key}=")))
            .unwrap_or_else(|| panic!("{key} missing:\n{}", r.stdout))
            .to_owned()
    };
    let keys: Vec<&str> = r
        .stdout
        .lines()
        .filter_map(|l| l.strip_prefix("entry "))
        .map(|l| l.split('=').next().unwrap())
        .collect();
    assert_eq!(
        keys,
        [
            "LOG_LVL",
            "DEBUG",
            "PROFILE",
            "LOG_TGT",
            "LOG_MODE",
            "LOG_FMT",
            "LOG_OTLP_ATTRS",
            "LOG_DIR",
            "PROFILE_DIR",
            "PROFILE_NAME",
            "PROFILE_HOST",
            // The variables read under their own names.
            "RUST_LOG",
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            "OTEL_EXPORTER_OTLP_PROTOCOL",
            "OTEL_EXPORTER_OTLP_HEADERS",
            "OTEL_SERVICE_NAME",
            "OTEL_RESOURCE_ATTRIBUTES",
            "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT",
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
            "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
            "OTEL_EXPORTER_OTLP_TIMEOUT",
            "OTEL_EXPORTER_OTLP_LOGS_TIMEOUT",
            "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT",
            "OTEL_EXPORTER_OTLP_METRICS_TIMEOUT",
            "OTEL_EXPORTER_OTLP_COMPRESSION",
            "OTEL_EXPORTER_OTLP_CERTIFICATE",
            "OTEL_EXPORTER_OTLP_LOGS_CERTIFICATE",
            "OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE",
            "OTEL_EXPORTER_OTLP_METRICS_CERTIFICATE",
            "OTEL_SDK_DISABLED",
            "NO_COLOR",
            "CLICOLOR_FORCE",
        ],
        "{}",
        r.stdout
    );
    let lvl = entry("LOG_LVL");
    assert!(
        lvl.starts_with(
            "entry LOG_LVL=debug origin=RADICAL_ASYNCFLOW_LOG_LVL \
             searched=[RADICAL_ASYNCFLOW_ENGINE_LOG_LVL,RADICAL_ASYNCFLOW_LOG_LVL,"
        ) && lvl.ends_with("] ignored=[]"),
        "{lvl}"
    );
    let profile = entry("PROFILE");
    assert!(
        profile.starts_with("entry PROFILE=false origin=built-in default searched=[")
            && profile.contains("ignored=[RADICAL_PROFILE=\"sometimes\": not a flag"),
        "{profile}"
    );
    // Every variable the accessor lists is on the table's "looked at" line,
    // in the same order.
    let searched = |l: &str| -> String {
        let from = l.find("searched=[").unwrap() + "searched=[".len();
        l[from..from + l[from..].find(']').unwrap()].replace(',', ", ")
    };
    assert!(
        r.stdout
            .contains(&format!("looked at {}\n", searched(&lvl))),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains(&format!("looked at {}\n", searched(&profile))),
        "{}",
        r.stdout
    );
    // The level the sites emit: LOG_LVL capped by the default sink's level.
    assert!(
        r.stdout.contains(
            "entries effective=debug static=trace checks=true telemetry=true lvl-by-entry=debug"
        ),
        "{}",
        r.stdout
    );
}

#[test]
fn describe_without_root_describes_the_executable() {
    let r = probe(&[("ENV_PROBE_LOG_LVL", "debug")], &["init", "describe"]);
    assert!(
        r.stdout.starts_with(
            "elide configuration for `env-probe` (prefix ENV_PROBE, no application root)"
        ),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("from ENV_PROBE_LOG_LVL"), "{}", r.stdout);
    let r = probe(&[], &["ns:radical.asyncflow", "describe"]);
    assert!(
        r.stdout
            .starts_with("elide configuration for `radical.asyncflow`"),
        "{}",
        r.stdout
    );
}

/// A FIFO with no reader named in `LOG_TGT` does not hang start-up: it is
/// refused with one warning and its records go to stderr.
#[test]
fn a_fifo_log_target_is_refused_without_blocking() {
    let dir = temp_dir();
    let fifo = dir.join("pipe");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if !made.map(|s| s.success()).unwrap_or(false) {
        eprintln!("skipped: mkfifo is not available");
        return;
    }
    let r = probe(
        &[
            ("ENV_PROBE_LOG_TGT", fifo.to_str().unwrap()),
            ("RADICAL_LOG_LVL", "info"),
        ],
        &["init", "emit"],
    );
    let warnings = r.warnings();
    assert_eq!(warnings.len(), 1, "{}", r.stderr);
    assert!(warnings[0].contains("FIFO"), "{}", warnings[0]);
    assert!(r.stderr.contains("probe info line"), "{}", r.stderr);
    fs::remove_dir_all(&dir).unwrap();
}

/// 1,500 targets that cannot be opened give one warning, not one each, and
/// a 100 KB value (near the 128 KiB limit of one variable on Linux) is
/// echoed clipped: warnings stay readable.
#[test]
fn three_bad_targets_are_all_named_with_nothing_more() {
    let dir = temp_dir();
    let blocker = dir.join("plain-file");
    fs::write(&blocker, "not a directory").unwrap();
    let targets: Vec<String> = (0..3)
        .map(|i| format!("{}/sub{i}/x.log", blocker.display()))
        .collect();
    let r = probe(
        &[
            ("ENV_PROBE_LOG_TGT", &targets.join(",")),
            ("ENV_PROBE_LOG_LVL", "info"),
        ],
        &["init"],
    );
    let _ = fs::remove_dir_all(&dir);
    let warnings = r.warnings();
    assert_eq!(warnings.len(), 1, "{}", r.stderr);
    assert!(warnings[0].contains("3 targets"), "{}", warnings[0]);
    assert!(warnings[0].contains("sub2"), "{}", warnings[0]);
    assert!(!warnings[0].contains("more"), "{}", warnings[0]);
}

/// Without the `otlp` feature an `otlp` target is ignored, and said so.
#[cfg(not(feature = "otlp"))]
#[test]
fn an_otlp_target_without_the_feature_gets_one_warning() {
    let r = probe(
        &[
            ("ENV_PROBE_LOG_TGT", "stderr,otlp"),
            ("RADICAL_LOG_LVL", "info"),
        ],
        &["init", "emit"],
    );
    assert_eq!(
        r.stderr
            .matches("names an otlp target, but elide was built without its `otlp` feature")
            .count(),
        1,
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("probe info line"), "{}", r.stderr);
}

#[test]
fn many_bad_targets_and_huge_values_give_one_short_warning() {
    let dir = temp_dir();
    let blocker = dir.join("plain-file");
    fs::write(&blocker, "not a directory").unwrap();
    let targets: Vec<String> = (0..1_500)
        .map(|i| format!("{}/sub{i}/x.log", blocker.display()))
        .collect();
    let r = probe(
        &[
            ("ENV_PROBE_LOG_TGT", &targets.join(",")),
            ("RADICAL_LOG_LVL", "info"),
        ],
        &["init", "emit"],
    );
    let warnings = r.warnings();
    assert_eq!(warnings.len(), 1, "{} bytes of stderr", r.stderr.len());
    assert!(warnings[0].contains("1500 targets"), "{}", warnings[0]);
    assert!(warnings[0].contains("and 1497 more"), "{}", warnings[0]);
    assert!(warnings[0].len() < 2_000, "{} bytes", warnings[0].len());

    let huge = format!("{}/{}", blocker.display(), "y".repeat(100_000));
    let r = probe(
        &[("ENV_PROBE_LOG_TGT", &huge), ("RADICAL_LOG_LVL", "info")],
        &["init", "emit"],
    );
    let warnings = r.warnings();
    assert_eq!(warnings.len(), 1, "{} bytes of stderr", r.stderr.len());
    assert!(warnings[0].len() < 2_000, "{} bytes", warnings[0].len());
    assert!(
        warnings[0].contains(&format!("({} bytes)", huge.len() + 2)),
        "the echo says how long the value was: {}",
        warnings[0]
    );
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn rust_log_applies_where_no_radical_variable_decides_and_describe_says_so() {
    let r = probe(
        &[
            (
                "RUST_LOG",
                "warn,radical_pilot=debug,radical_asyncflow=trace",
            ),
            ("RADICAL_ASYNCFLOW_LOG_LVL", "info"),
        ],
        &["init", "report", "describe:radical_pilot::agent"],
    );
    // RADICAL_ASYNCFLOW_LOG_LVL decides its namespace; RUST_LOG the rest.
    assert_eq!(r.get("engine.level"), "info");
    assert_eq!(r.get("pilot.level"), "debug");
    assert_eq!(r.get("app.level"), "warn");
    assert!(
        r.stdout
            .lines()
            .any(|l| l.contains("LOG_LVL ") && l.contains("debug") && l.contains("from RUST_LOG")),
        "{}",
        r.stdout
    );
    assert!(r.warnings().is_empty(), "{}", r.stderr);
}

#[test]
fn bad_rust_log_directive_and_near_miss_names_warn_once_each() {
    let r = probe(
        &[
            ("RUST_LOG", "info,db=verbose"),
            ("RADICAL_LOG_LEVEL", "debug"),
        ],
        &["init", "report", "emit", "reload", "report"],
    );
    let warnings = r.warnings();
    assert_eq!(warnings.len(), 2, "{}", r.stderr);
    let directive = warnings.iter().find(|w| w.contains("RUST_LOG")).unwrap();
    assert!(directive.contains("`db=verbose`"), "{directive}");
    let near = warnings
        .iter()
        .find(|w| w.contains("RADICAL_LOG_LEVEL"))
        .unwrap();
    assert!(near.contains("did you mean `RADICAL_LOG_LVL`"), "{near}");
    // The good directive still applies; the near miss is not read.
    assert_eq!(r.get("app.level"), "info");
}

#[test]
fn log_fmt_chooses_the_line_format_of_the_log_targets() {
    let r = probe(
        &[
            ("ENV_PROBE_LOG_TGT", "stdout,./x.log"),
            ("ENV_PROBE_LOG_FMT", " JSON "),
            ("RADICAL_LOG_LVL", "info"),
        ],
        &["init", "emit", "describe:radical"],
    );
    assert!(r.warnings().is_empty(), "{}", r.stderr);
    let file = fs::read_to_string(r.dir.join("x.log")).expect("x.log");
    let on_stdout: Vec<&str> = r.stdout.lines().filter(|l| l.contains("probe ")).collect();
    for text in [file.as_str(), &on_stdout.join("\n")] {
        let lines: Vec<serde_json::Value> = text
            .lines()
            .filter(|l| l.contains("probe info line") || l.contains("probe error line"))
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
            .collect();
        assert_eq!(lines.len(), 2, "{text}");
        assert_eq!(lines[1]["msg"], "probe info line");
        assert_eq!(lines[1]["level"], "INFO");
    }
    assert!(
        r.stdout.lines().any(|l| l.contains("LOG_FMT ")
            && l.contains("json")
            && l.contains("from ENV_PROBE_LOG_FMT")),
        "{}",
        r.stdout
    );

    // The root's own variable beats RADICAL's.
    let r = probe(
        &[
            ("RADICAL_LOG_TGT", "./x.log"),
            ("RADICAL_LOG_FMT", "json"),
            ("RADICAL_ASYNCFLOW_LOG_FMT", "Compact"),
            ("RADICAL_LOG_LVL", "info"),
        ],
        &["ns:radical.asyncflow", "emit"],
    );
    let file = fs::read_to_string(r.dir.join("x.log")).expect("x.log");
    let line = file
        .lines()
        .find(|l| l.contains("probe info line"))
        .unwrap();
    // `HH:MM:SS.mmm LEVEL target: message`
    assert!(!line.starts_with('{') && !line.contains(" : "), "{line}");
    let (time, rest) = line.split_once(' ').unwrap();
    assert!(time.len() == 12 && time.as_bytes()[2] == b':', "{line}");
    assert!(rest.starts_with("INFO "), "{line}");
    assert!(
        rest.ends_with("radical_asyncflow::engine: probe info line"),
        "{line}"
    );
}

/// `LOG_FMT=radical-dotted` writes the RADICAL line with the name column as
/// radical.utils' logger names read, spelled from the root namespace.
#[test]
fn log_fmt_radical_dotted_spells_the_name_from_the_root() {
    let r = probe(
        &[
            ("RADICAL_LOG_TGT", "./x.log"),
            ("RADICAL_ASYNCFLOW_LOG_FMT", "radical-dotted"),
            ("RADICAL_LOG_LVL", "info"),
        ],
        &["ns:radical.asyncflow", "emit"],
    );
    assert!(r.warnings().is_empty(), "{}", r.stderr);
    let file = fs::read_to_string(r.dir.join("x.log")).expect("x.log");
    let line = file
        .lines()
        .find(|l| l.contains("probe info line"))
        .unwrap();
    let columns: Vec<&str> = line.split(" : ").collect();
    assert_eq!(columns.len(), 6, "{line}");
    assert_eq!(columns[1].trim_end(), "radical.asyncflow.engine", "{line}");
}

#[test]
fn bad_log_fmt_warns_once_and_keeps_the_radical_line() {
    let r = probe(
        &[
            ("ENV_PROBE_LOG_TGT", "./x.log"),
            ("ENV_PROBE_LOG_FMT", "xml"),
            ("RADICAL_LOG_LVL", "info"),
        ],
        &["init", "emit", "reload", "emit", "describe:radical"],
    );
    let warnings = r.warnings();
    assert_eq!(warnings.len(), 1, "{}", r.stderr);
    for part in ["ENV_PROBE_LOG_FMT", "\"xml\"", "radical"] {
        assert!(warnings[0].contains(part), "{}", warnings[0]);
    }
    let file = fs::read_to_string(r.dir.join("x.log")).expect("x.log");
    let lines: Vec<&str> = file
        .lines()
        .filter(|l| l.contains("probe info line"))
        .collect();
    assert_eq!(lines.len(), 2, "{file}");
    // `<time> : <target> : <pid> : <tid> : <LEVEL> : <message>`
    assert_eq!(lines[0].split(" : ").count(), 6, "{}", lines[0]);
    assert!(
        r.stdout.contains("ignored ENV_PROBE_LOG_FMT=\"xml\""),
        "{}",
        r.stdout
    );
}

/// `NO_COLOR` and the `OTEL_*` variables are part of the snapshot:
/// `describe` names them and what set them, and `reload_from_env` sees a
/// change, like every other key.
#[test]
fn describe_and_reload_know_no_color_and_the_otel_variables() {
    let r = probe(
        &[("OTEL_SERVICE_NAME", "checkout")],
        &[
            "init",
            "describe",
            "set:NO_COLOR=1",
            "describe",
            "reload",
            "describe",
        ],
    );
    let lines = |key: &str| -> Vec<String> {
        r.stdout
            .lines()
            .filter(|l| l.trim_start().starts_with(&format!("{key} ")))
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect()
    };
    assert_eq!(
        lines("OTEL_SERVICE_NAME"),
        ["OTEL_SERVICE_NAME checkout from OTEL_SERVICE_NAME"; 3],
        "{}",
        r.stdout
    );
    // Read once: a change is seen only after the reload.
    assert_eq!(
        lines("NO_COLOR"),
        [
            "NO_COLOR unset from built-in default",
            "NO_COLOR unset from built-in default",
            "NO_COLOR 1 from NO_COLOR"
        ],
        "{}",
        r.stdout
    );
}

/// A rejected level falls back to the program's `set_default_level`, and
/// the warning says so instead of calling it the built-in default.
#[test]
fn a_bad_level_warning_names_set_default_level_as_its_fallback() {
    let r = probe(
        &[("RADICAL_ASYNCFLOW_LOG_LVL", "verbose")],
        &["init", "api-default:info", "report"],
    );
    assert_eq!(r.get("engine.level"), "info");
    let warnings = r.warnings();
    assert_eq!(warnings.len(), 1, "{}", r.stderr);
    assert!(
        warnings[0]
            .starts_with("elide: ignoring RADICAL_ASYNCFLOW_LOG_LVL=\"verbose\": not a level")
            && warnings[0].ends_with("; using info (from set_default_level)"),
        "{}",
        warnings[0]
    );
}

/// A `LOG_TGT` list with one target that cannot be opened: the warning
/// names exactly that target as ignored (not the whole value) and says
/// what is used: stderr in its place, and the other targets.
#[test]
fn a_target_that_cannot_be_opened_is_named_and_the_others_still_used() {
    let dir = temp_dir();
    let blocker = dir.join("plain-file");
    fs::write(&blocker, "not a directory").unwrap();
    let bad = blocker.join("x.log");
    let bad = bad.to_str().unwrap();
    let value = format!("{bad},stdout");
    let r = probe(
        &[("RADICAL_LOG_TGT", &value), ("RADICAL_LOG_LVL", "info")],
        &["ns:radical", "emit"],
    );
    let warnings = r.warnings();
    assert_eq!(warnings.len(), 1, "{}", r.stderr);
    let expected = format!(
        "elide: ignoring the target {bad} of RADICAL_LOG_TGT={value:?}: cannot open {bad}: "
    );
    assert!(warnings[0].starts_with(&expected), "{}", warnings[0]);
    assert!(
        warnings[0].ends_with("; using stderr in its place, and stdout"),
        "{}",
        warnings[0]
    );
    assert!(r.stdout.contains("probe info line"), "{}", r.stdout);
    assert!(r.stderr.contains("probe info line"), "{}", r.stderr);
    fs::remove_dir_all(&dir).unwrap();
}

/// A `RUST_LOG` directive that does not parse: the warning names that
/// directive as ignored, not the whole value.
#[test]
fn a_bad_rust_log_directive_is_named_as_the_part_ignored() {
    let r = probe(&[("RUST_LOG", "info,db=verbose")], &["init", "report"]);
    let warnings = r.warnings();
    assert_eq!(warnings.len(), 1, "{}", r.stderr);
    assert!(
        warnings[0].starts_with(
            "elide: ignoring the directive `db=verbose` of RUST_LOG=\"info,db=verbose\": not a level"
        ) && warnings[0].ends_with("; using the other directives"),
        "{}",
        warnings[0]
    );
}

/// `~/` at the start of a `LOG_TGT` file is the home directory, as in a
/// shell; it never becomes a directory named `~` in the working directory.
#[test]
fn a_leading_tilde_in_log_tgt_is_the_home_directory() {
    let home = temp_dir();
    let r = probe(
        &[
            ("HOME", home.to_str().unwrap()),
            ("RADICAL_LOG_TGT", "~/logs/x.log"),
            ("RADICAL_LOG_LVL", "info"),
        ],
        &["ns:radical", "emit"],
    );
    let file = fs::read_to_string(home.join("logs/x.log")).expect("x.log under HOME");
    assert!(file.contains("probe info line"), "{file}");
    assert!(!r.dir.join("~").exists(), "a directory named ~ was created");
    assert!(r.warnings().is_empty(), "{}", r.stderr);
    fs::remove_dir_all(&home).unwrap();
}

/// Without HOME, `~/` cannot be expanded: that target is named in one
/// warning and replaced by stderr; the other targets still apply and no
/// directory named `~` appears.
#[test]
fn a_tilde_without_home_is_refused_with_a_warning() {
    let r = probe(
        &[
            ("RADICAL_LOG_TGT", "~/x.log,stdout"),
            ("RADICAL_LOG_LVL", "info"),
        ],
        &["ns:radical", "emit"],
    );
    assert!(!r.dir.join("~").exists(), "a directory named ~ was created");
    let warnings = r.warnings();
    assert_eq!(warnings.len(), 1, "{}", r.stderr);
    assert!(
        warnings[0].starts_with(
            "elide: ignoring the target ~/x.log of RADICAL_LOG_TGT=\"~/x.log,stdout\": \
             cannot expand `~`: HOME is not set"
        ) && warnings[0].ends_with("; using stderr in its place, and stdout"),
        "{}",
        warnings[0]
    );
    assert!(r.stdout.contains("probe info line"), "{}", r.stdout);
    assert!(r.stderr.contains("probe info line"), "{}", r.stderr);
}

/// One rule for every key, in a program that calls `init()` (the probe's
/// executable is `env-probe`): its own prefix, `ENV_PROBE_`, answers for
/// every key, at its own sites and at a dependency's; `RADICAL_` answers
/// only when asked for with `init_ns("radical")`, and otherwise a set
/// `RADICAL_` variable gets one warning saying why it is ignored.
#[test]
fn the_programs_own_prefix_answers_for_every_key_and_radical_only_when_asked() {
    let origin = |r: &Run, ns: &str, key: &str| -> String {
        let entries = r
            .stdout
            .split("entries effective")
            .find(|block| block.contains(&format!("entries-of {ns}\n")))
            .unwrap_or_else(|| panic!("no entries for {ns}:\n{}", r.stdout));
        let line = entries
            .lines()
            .find(|l| l.starts_with(&format!("entry {key}=")))
            .unwrap_or_else(|| panic!("no {key} entry:\n{}", r.stdout));
        let from = line.find(" origin=").unwrap() + " origin=".len();
        line[from..line.find(" searched=").unwrap()].to_owned()
    };
    // (key, its entry in `describe`, a value)
    for (key, entry, value) in [
        ("LOG_LVL", "LOG_LVL", "debug"),
        ("VERBOSE", "LOG_LVL", "debug"),
        ("DEBUG", "DEBUG", "on"),
        ("PROFILE", "PROFILE", "on"),
        ("LOG_TGT", "LOG_TGT", "stdout"),
        ("LOG_MODE", "LOG_MODE", "durable"),
        ("LOG_FMT", "LOG_FMT", "compact"),
        ("PROFILE_DIR", "PROFILE_DIR", "/p"),
        ("PROFILE_NAME", "PROFILE_NAME", "agent_0"),
        ("PROFILE_HOST", "PROFILE_HOST", "node01"),
    ] {
        let look = ["entries:env_probe", "entries:chatty_dep"];
        let own = format!("ENV_PROBE_{key}");
        let r = probe(&[(&own, value)], &[&["init"][..], &look].concat());
        assert_eq!(origin(&r, "env_probe", entry), own, "{}", r.stdout);
        assert_eq!(origin(&r, "chatty_dep", entry), own, "{}", r.stdout);
        assert!(r.warnings().is_empty(), "{own}: {}", r.stderr);

        let radical = format!("RADICAL_{key}");
        let r = probe(&[(&radical, value)], &[&["init"][..], &look].concat());
        assert_ne!(origin(&r, "env_probe", entry), radical, "{}", r.stdout);
        let warnings = r.warnings();
        assert_eq!(warnings.len(), 1, "{radical}: {}", r.stderr);
        assert!(
            warnings[0].starts_with(&format!("elide: ignoring {radical}={value:?}: "))
                && warnings[0].contains("this application's variables start with ENV_PROBE_"),
            "{}",
            warnings[0]
        );

        let r = probe(&[(&radical, value)], &[&["ns:radical"][..], &look].concat());
        assert_eq!(origin(&r, "env_probe", entry), radical, "{}", r.stdout);
        assert_eq!(origin(&r, "chatty_dep", entry), radical, "{}", r.stdout);
        assert!(r.warnings().is_empty(), "{radical}: {}", r.stderr);
    }
    // The log directory has one variable, whatever the root; another
    // spelling is named as ignored.
    for var in ["ENV_PROBE_LOG_DIR", "RADICAL_LOG_DIR"] {
        let r = probe(&[(var, "/l")], &["init", "entries:env_probe"]);
        assert_eq!(origin(&r, "env_probe", "LOG_DIR"), "built-in default");
        let warnings = r.warnings();
        assert_eq!(warnings.len(), 1, "{var}: {}", r.stderr);
        assert!(
            warnings[0].starts_with(&format!(
                "elide: ignoring {var}=\"/l\": only RADICAL_DEFAULT_LOG_DIR is read"
            )),
            "{}",
            warnings[0]
        );
    }
    let r = probe(
        &[("RADICAL_DEFAULT_LOG_DIR", "/l")],
        &["init", "entries:env_probe"],
    );
    assert_eq!(
        origin(&r, "env_probe", "LOG_DIR"),
        "RADICAL_DEFAULT_LOG_DIR"
    );
    assert!(r.warnings().is_empty(), "{}", r.stderr);
}
