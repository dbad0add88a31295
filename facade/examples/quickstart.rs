//! The quick start: `cargo run --example quickstart`.
//!
//! Try it with `RADICAL_LOG_LVL=debug` (3,000 more lines),
//! `RADICAL_DEBUG=1` (the checks run, and one line more says so),
//! `RADICAL_PROFILE=1` (a `.prof` file) or
//! `RADICAL_LOG_TGT=stdout,./quickstart.log` in front.
use elide::{check, counter, debug, error, info, telemetry, warn};

#[derive(Debug)]
enum State {
    Running,
}

struct Task {
    uid: String,
    state: State,
}

fn run_task(t: &Task, seq: u64) {
    debug!(uid = %t.uid, state = ?t.state, "task {} is in {:?} state", t.uid, t.state);
    check!(!t.uid.is_empty(), "task {} has no uid", seq); // debug mode only
    telemetry!("task.start", uid = %t.uid); // telemetry only
    counter!("tasks.started"); // always, a few instructions
    info!(sample = 1000, "progress: {} tasks", seq); // 1 in 1000
}

fn main() {
    // Sites in this crate answer to QUICKSTART_* and then RADICAL_* variables.
    let _guard = elide::init_ns("radical");
    // The built-in default when no variable says otherwise (RADICAL's is Error).
    elide::set_default_level(elide::LevelFilter::Info);
    error!(code = 7, "something failed");
    warn!("a warning with a newline\ninside stays on one line");
    let task = Task {
        uid: "task.000001".into(),
        state: State::Running,
    };
    for seq in 0..3000 {
        run_task(&task, seq);
    }
    // Debug mode only (`RADICAL_DEBUG=1`): a costly validation, which the
    // `checks_off` feature compiles out like Python's `if __debug__:` under -O.
    if elide::debug_mode!() {
        let valid = task.uid.starts_with("task.") && matches!(task.state, State::Running);
        info!(
            valid,
            "debug mode: the check! sites ran, and the task was validated"
        );
    }
    info!(started = elide::counter_value("tasks.started"), "done");
}
