//! Shared helpers for the integration tests.

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Runs `cmd` with its output captured and a deadline, so a hung build or
/// child fails the test (killed, with the command in the message) instead
/// of hanging it.
pub fn run_with_deadline(mut cmd: Command, limit: Duration) -> Output {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let start = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("{cmd:?} did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("output")
}
