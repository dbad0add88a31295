//! A small task runner that uses every kind of elide site:
//! `cargo run --example task_runner`.
//!
//! The program is `task_runner`, so it answers to `TASK_RUNNER_*`
//! variables, every key alike (the `RADICAL_*` ones do not reach a program
//! outside `radical_*` unless it calls `elide::init_ns("radical")`):
//!
//! ```sh
//! cargo run --example task_runner                               # info and above
//! TASK_RUNNER_LOG_LVL=debug cargo run --example task_runner     # every state change
//! TASK_RUNNER_SCHEDULER_LOG_LVL=trace cargo run --example task_runner  # one module
//! TASK_RUNNER_DEBUG=1 cargo run --example task_runner           # run the checks
//! TASK_RUNNER_PROFILE=1 TASK_RUNNER_PROFILE_DIR=/tmp/prof cargo run --example task_runner
//! TASK_RUNNER_LOG_TGT=stdout,./runner.log cargo run --example task_runner
//! ```

use std::sync::Mutex;
use std::time::{Duration, Instant};

use elide::{check, check_eq, counter, debug, enabled, error, info, telemetry, trace, warn, Level};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    New,
    Running,
    Done,
    Failed,
}

#[derive(Debug)]
struct Task {
    uid: String,
    deps: Vec<usize>,
    /// Attempts that fail before one succeeds (a flaky task), or `None`
    /// for a task that always fails.
    fails: Option<u32>,
    state: State,
}

mod scheduler {
    use super::*;

    /// Picks the next task whose dependencies are all done.
    #[elide::checked(
        requires(!tasks.is_empty(), "scheduling from an empty task list"),
        ensures(|picked| picked.map_or(true, |i| tasks[i].state == State::New)),
    )]
    pub fn next_ready(tasks: &[Task]) -> Option<usize> {
        let ready = tasks.iter().position(|t| {
            t.state == State::New && t.deps.iter().all(|&d| tasks[d].state == State::Done)
        });
        trace!(?ready, "scanned {} tasks", tasks.len());
        ready
    }
}

mod worker {
    use super::*;

    /// Runs one attempt of a task; `Err` carries the reason.
    pub(crate) fn attempt(task: &Task, attempt: u32) -> Result<u64, String> {
        match task.fails {
            Some(n) if attempt >= n => {
                let bytes = 4096 * (task.deps.len() as u64 + 1);
                counter!("bytes.processed", bytes);
                Ok(bytes)
            }
            _ => Err(format!("exit code {}", 100 + attempt)),
        }
    }
}

fn run(tasks: &Mutex<Vec<Task>>, id: usize) {
    loop {
        let picked = {
            let mut tasks = tasks.lock().unwrap();
            if tasks
                .iter()
                .all(|t| matches!(t.state, State::Done | State::Failed))
            {
                return;
            }
            match scheduler::next_ready(&tasks) {
                Some(i) => {
                    tasks[i].state = State::Running;
                    Some((
                        i,
                        tasks[i].uid.clone(),
                        tasks[i].deps.clone(),
                        tasks[i].fails,
                    ))
                }
                None => None,
            }
        };
        let Some((i, uid, deps, fails)) = picked else {
            // Everything left waits on running or failed tasks.
            warn!(
                every = Duration::from_millis(200),
                worker = id,
                "no task ready, waiting"
            );
            if blocked_forever(tasks) {
                return;
            }
            std::thread::sleep(Duration::from_millis(1));
            continue;
        };
        {
            let tasks = tasks.lock().unwrap();
            // Only in debug mode: the scheduler promised resolved dependencies.
            check!(
                deps.iter().all(|&d| tasks[d].state == State::Done),
                "task {uid} started with open dependencies {deps:?}"
            );
        }
        debug!(%uid, worker = id, state = ?State::Running, "task {uid} is running");
        telemetry!("task.start", %uid, state = "RUNNING");
        counter!("tasks.started");

        let start = Instant::now();
        let task = Task {
            uid: uid.clone(),
            deps,
            fails,
            state: State::Running,
        };
        let mut outcome = Err(String::new());
        for n in 0..3 {
            outcome = worker::attempt(&task, n);
            match &outcome {
                Ok(_) => break,
                Err(why) => warn!(%uid, attempt = n + 1, "task {uid} failed ({why}), retrying"),
            }
        }
        let state = match outcome {
            Ok(bytes) => {
                debug!(%uid, bytes, ms = start.elapsed().as_secs_f64() * 1e3, "task {uid} done");
                State::Done
            }
            Err(why) => {
                error!(%uid, reason = %why, "task {uid} failed for good");
                State::Failed
            }
        };
        telemetry!("task.stop", %uid, state = ?state);
        counter!("tasks.finished");
        let done = {
            let mut tasks = tasks.lock().unwrap();
            tasks[i].state = state;
            tasks.iter().filter(|t| t.state == State::Done).count()
        };
        info!(sample = 25, done, "progress: {done} tasks done");
    }
}

/// Whether every task that is not finished depends on a failed one.
fn blocked_forever(tasks: &Mutex<Vec<Task>>) -> bool {
    let mut tasks = tasks.lock().unwrap();
    let mut changed = false;
    for i in 0..tasks.len() {
        if tasks[i].state == State::New
            && tasks[i]
                .deps
                .iter()
                .any(|&d| tasks[d].state == State::Failed)
        {
            error!(uid = %tasks[i].uid, "task {} skipped: a dependency failed", tasks[i].uid);
            tasks[i].state = State::Failed;
            changed = true;
        }
    }
    !changed && tasks.iter().all(|t| t.state != State::New)
}

fn main() {
    // Reads the environment once; flushes every sink when dropped at the
    // end of main. The built-in default level is Error (RADICAL's): show
    // Info unless a variable says otherwise.
    let _guard = elide::init();
    elide::set_default_level(elide::LevelFilter::Info);

    // 200 tasks in chains of four; every 37th is flaky, task 150 always fails.
    let tasks: Vec<Task> = (0..200)
        .map(|i| Task {
            uid: format!("task.{i:06}"),
            deps: if i % 4 == 0 { vec![] } else { vec![i - 1] },
            fails: match i {
                150 => None,
                i if i % 37 == 0 => Some(1),
                _ => Some(0),
            },
            state: State::New,
        })
        .collect();
    check_eq!(tasks.len(), 200, "task list built");
    let roots = tasks.iter().filter(|t| t.deps.is_empty()).count();
    info!(tasks = tasks.len(), roots, workers = 2, "starting");
    info!(
        once,
        "set TASK_RUNNER_LOG_LVL=debug to see every state change"
    );

    let tasks = Mutex::new(tasks);
    std::thread::scope(|s| {
        for w in 0..2 {
            let tasks = &tasks;
            s.spawn(move || run(tasks, w));
        }
    });

    let tasks = tasks.into_inner().unwrap();
    let failed: Vec<&str> = tasks
        .iter()
        .filter(|t| t.state == State::Failed)
        .map(|t| t.uid.as_str())
        .collect();
    // Build the summary only when someone will read it.
    if enabled!(Level::Debug) {
        let states: Vec<State> = tasks.iter().map(|t| t.state).collect();
        debug!("final states: {states:?}");
    }
    let level = if failed.is_empty() {
        Level::Info
    } else {
        Level::Warn
    };
    elide::log!(
        level,
        started = elide::counter_value("tasks.started"),
        finished = elide::counter_value("tasks.finished"),
        bytes = elide::counter_value("bytes.processed"),
        failed = failed.len(),
        "finished; failed: {failed:?}"
    );
}
