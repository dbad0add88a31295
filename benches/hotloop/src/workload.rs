//! The "expensive argument": rendering a task description as a JSON-like
//! string, about a microsecond of work (allocation, integer and float
//! formatting), like the Python seed's `json.dumps(task)` in a debug line.

use std::fmt::Write;

/// A task as a workflow engine would describe it.
pub struct Task {
    uid: u64,
    name: &'static str,
    state: &'static str,
    cores: u32,
    gpus: u32,
    timings: [f64; 3],
    tags: [&'static str; 3],
}

/// The task for iteration `i`.
#[inline(never)]
pub fn task(i: u64) -> Task {
    let f = i as f64;
    Task {
        uid: i,
        name: "simulate",
        state: if i % 2 == 0 { "RUNNING" } else { "DONE" },
        cores: (i % 64) as u32,
        gpus: (i % 4) as u32,
        timings: [f * 0.5, f + 0.125, f / 3.0],
        tags: ["hpc", "ensemble", "stage-1"],
    }
}

/// Renders `t` as a JSON object.
#[inline(never)]
pub fn to_json(t: &Task) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        r#"{{"uid":"task.{:06}","name":"{}","state":"{}","cores":{},"gpus":{},"timings":["#,
        t.uid, t.name, t.state, t.cores, t.gpus
    );
    for (k, v) in t.timings.iter().enumerate() {
        if k > 0 {
            s.push(',');
        }
        let _ = write!(s, "{v}");
    }
    s.push_str(r#"],"tags":["#);
    for (k, tag) in t.tags.iter().enumerate() {
        if k > 0 {
            s.push(',');
        }
        let _ = write!(s, "{tag:?}");
    }
    s.push_str("]}");
    s
}
