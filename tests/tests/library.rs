//! A library on elide behaves as a library: until the application sets
//! elide up, the library's records go where the application's logging goes
//! (`bin/library_app.rs`, one process per logger: loggers are global).

use std::process::Command;
use std::time::Duration;

/// Runs the application with its logger `mode`; returns (stdout, stderr).
fn run(mode: &str, env: &[(&str, &str)]) -> (String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_library_app"));
    cmd.arg(mode)
        .env_remove("RUST_LOG")
        .envs(env.iter().copied());
    let out = elide_tests::run_with_deadline(&mut cmd, Duration::from_secs(120));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "{mode}: {}\n{stdout}\n{stderr}",
        out.status
    );
    (stdout, stderr)
}

#[test]
fn an_application_with_env_logger_gets_the_library_records_there() {
    let (out, err) = run("env_logger", &[]);
    // At env_logger's level (info), through its format, and nowhere else.
    assert!(
        out.contains("via-env_logger ERROR library_on_elide work failed"),
        "{out}\n{err}"
    );
    assert!(
        out.contains("via-env_logger INFO library_on_elide halfway"),
        "{out}\n{err}"
    );
    assert!(!out.contains("starting work"), "{out}");
    assert!(!err.contains("work failed"), "{err}");
}

/// `tracing_subscriber::fmt().init()` with the `tracing-log` feature (on by
/// default) also makes tracing-log the `log` logger: the library's records
/// still go to the subscriber directly, with their fields (through
/// `LogTracer` they would arrive without).
#[test]
fn an_application_with_a_tracing_subscriber_gets_the_library_records_there() {
    let (out, err) = run("tracing_fmt", &[]);
    let failed: Vec<&str> = out.lines().filter(|l| l.contains("work failed")).collect();
    assert_eq!(failed.len(), 1, "{out}\n{err}");
    assert!(
        failed[0].contains("ERROR")
            && failed[0].contains("library_on_elide")
            && failed[0].contains("code=7"),
        "{}",
        failed[0]
    );
    assert!(out.contains("halfway"), "{out}");
    assert!(!out.contains("starting work"), "{out}");
    assert!(!err.contains("work failed"), "{err}");
}

#[test]
fn once_the_application_calls_init_elide_sinks_take_over() {
    let (out, err) = run("env_logger-then-init", &[]);
    assert!(!out.contains("work failed"), "{out}");
    assert!(err.contains("work failed"), "{err}");
}

#[test]
fn with_no_logger_the_library_writes_only_errors_to_stderr() {
    let (out, err) = run("none", &[]);
    assert!(out.is_empty(), "{out}");
    let lines: Vec<&str> = err.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(lines[0].contains("work failed"), "{err}");
}

#[test]
fn a_leftover_rust_log_is_not_read_until_the_application_sets_elide_up() {
    // The application never set a logger up: RUST_LOG is no order to the
    // library, elide's default (errors) stands.
    let (_, err) = run("none", &[("RUST_LOG", "debug")]);
    let lines: Vec<&str> = err.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "{err}");
    // After `init`, RUST_LOG is the application's choice and is read.
    let (_, err) = run("none-then-init", &[("RUST_LOG", "debug")]);
    let (before, after) = err.split_once("-- init --").expect("marker");
    assert!(!before.contains("starting work"), "{err}");
    assert!(before.contains("work failed"), "{err}");
    assert!(
        after.contains("starting work") && after.contains("halfway"),
        "{err}"
    );
}
