//! Debug mode from the environment, on a real binary (`bin/radical_asyncflow.rs`,
//! whose sites live under `RADICAL_ASYNCFLOW`): `RADICAL_ASYNCFLOW_DEBUG`
//! decides when set, else `RADICAL_DEBUG`; a bad value warns once and leaves
//! checks off. Each case runs the binary with a clean environment, so the
//! test process's own environment is neither read nor changed.

use std::process::Command;

struct Run {
    stdout: String,
    stderr: String,
}

fn run(vars: &[(&str, &str)]) -> Run {
    let out = elide_tests::run_with_deadline(
        Command::new(env!("CARGO_BIN_EXE_radical_asyncflow"))
            .env_clear()
            .envs(vars.iter().copied()),
        std::time::Duration::from_secs(60),
    );
    let run = Run {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    assert!(out.status.success(), "probe failed: {}", run.stderr);
    run
}

const ON: &str = "check=true checked=true debug_mode=true\n";
const OFF: &str = "check=false checked=false debug_mode=false\n";

#[test]
fn package_variable_turns_checks_on() {
    assert_eq!(run(&[("RADICAL_ASYNCFLOW_DEBUG", "1")]).stdout, ON);
}

#[test]
fn unset_package_variable_falls_back_to_radical_debug() {
    assert_eq!(run(&[("RADICAL_DEBUG", "yes")]).stdout, ON);
}

#[test]
fn package_variable_wins_over_radical_debug() {
    let r = run(&[("RADICAL_ASYNCFLOW_DEBUG", "0"), ("RADICAL_DEBUG", "1")]);
    assert_eq!(r.stdout, OFF);
}

#[test]
fn neither_variable_leaves_checks_off() {
    let r = run(&[]);
    assert_eq!(r.stdout, OFF);
    assert_eq!(r.stderr, "", "nothing to warn about");
}

#[test]
fn garbage_value_warns_once_and_leaves_checks_off() {
    let r = run(&[("RADICAL_ASYNCFLOW_DEBUG", "maybe")]);
    assert_eq!(r.stdout, OFF);
    let warnings: Vec<_> = r
        .stderr
        .lines()
        .filter(|l| l.contains("RADICAL_ASYNCFLOW_DEBUG") && l.contains("maybe"))
        .collect();
    assert_eq!(warnings.len(), 1, "stderr:\n{}", r.stderr);
}
