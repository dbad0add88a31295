//! An agent component of a RADICAL session, configured by the environment
//! only (`RADICAL_PROFILE=1`, `RADICAL_PROFILE_DIR`, `RADICAL_PROFILE_NAME`),
//! as tests/radical/session.py runs it next to radical.utils' Python
//! profiler.
//!
//! Starts with a timed scope, `bootstrap` (its start event, timed on entry
//! and before the `.prof` file opens, is the first of the file and of the
//! session), prints `ready`, then for every
//! task uid read from stdin emits `exec_start` and `exec_stop` around a
//! timed scope and prints the uid back; at end of input, `bootstrap_stop`.

use std::io::{BufRead, Write};

#[elide::timed]
fn execute(uid: &str) {
    // A few milliseconds of "work", so the task has a duration to measure.
    let ms = 3 + u64::from(uid.bytes().last().unwrap_or(0) % 5);
    std::thread::sleep(std::time::Duration::from_millis(ms));
}

/// The component's start-up, a scope of its own.
#[elide::timed]
fn bootstrap() {
    elide::telemetry!("agent_ready");
}

fn main() {
    let _guard = elide::init_ns("radical");
    bootstrap();
    let mut out = std::io::stdout().lock();
    writeln!(out, "ready")
        .and_then(|()| out.flush())
        .expect("stdout");
    for line in std::io::stdin().lock().lines() {
        let uid = line.expect("stdin");
        let uid = uid.trim();
        if uid.is_empty() {
            break;
        }
        elide::telemetry!("exec_start", uid = uid, state = "AGENT_EXECUTING");
        execute(uid);
        elide::telemetry!(
            "exec_stop",
            uid = uid,
            state = "AGENT_STAGING_OUTPUT_PENDING"
        );
        writeln!(out, "{uid}")
            .and_then(|()| out.flush())
            .expect("stdout");
    }
    elide::telemetry!("agent_done");
}
