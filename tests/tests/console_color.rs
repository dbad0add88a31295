//! Console colour from the environment, end to end: `env-probe` writes to a
//! piped stderr (not a terminal), so colour appears only when forced.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs `env-probe init emit` with `vars` and returns its stderr; fails the
/// test (and kills the child) if it has not finished within 60 s.
fn stderr_of(vars: &[(&str, &str)]) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_env-probe"))
        .env_clear()
        .env("RADICAL_LOG_LVL", "info")
        .envs(vars.iter().copied())
        .args(["init", "emit"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn env-probe");
    let deadline = Instant::now() + Duration::from_secs(60);
    while child.try_wait().expect("poll env-probe").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("env-probe did not finish within 60 s");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(err.contains("probe info line"), "{err}");
    err
}

#[test]
fn pipe_is_plain_unless_clicolor_force_and_no_color_wins() {
    let esc = "\x1b[";
    assert!(
        !stderr_of(&[]).contains(esc),
        "a pipe gets no colour by default"
    );
    let forced = stderr_of(&[("CLICOLOR_FORCE", "1")]);
    assert!(forced.contains("\x1b[32mINFO\x1b[0m"), "{forced:?}");
    assert!(!stderr_of(&[("CLICOLOR_FORCE", "0")]).contains(esc));
    assert!(!stderr_of(&[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]).contains(esc));
}
