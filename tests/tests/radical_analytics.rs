//! elide's `.prof` files next to radical.utils' own, analysed by
//! radical.analytics from PyPI: a mixed session (a Python `ru.Profiler`
//! client, two elide agent processes named by `RADICAL_PROFILE_NAME`, an
//! NTP offset in radical.utils' `ntp.cache`) must analyse like its
//! pure-Python reference.
//!
//! Needs a Python with radical.analytics and radical.utils:
//! `ELIDE_RADICAL_PYTHON` names it (`.ci/radical-venv` creates a virtual
//! environment and prints the path). Without it the test says so and
//! passes.

use std::collections::BTreeSet;
use std::io::Write;
use std::process::Command;
use std::time::Duration;

use serde_json::Value;

/// The host clock's offset from NTP time written to `ntp.cache`: behind by
/// half a second, so radical.analytics moves every row half a second later
/// (an offset ahead would move them earlier, below the session's zero, in
/// a pure-Python session too).
const OFFSET: f64 = -0.5;

/// One row as radical.analytics gives it: corrected time, event, comp, uid.
#[derive(Debug, Clone)]
struct Row {
    time: f64,
    event: String,
    comp: String,
    uid: String,
}

fn rows(session: &Value) -> Vec<Row> {
    let mut rows: Vec<Row> = session["events"]
        .as_array()
        .expect("events")
        .iter()
        .map(|e| Row {
            time: e[0].as_f64().expect("time"),
            event: e[1].as_str().expect("event").to_owned(),
            comp: e[2].as_str().expect("comp").to_owned(),
            uid: e[3].as_str().expect("uid").to_owned(),
        })
        .collect();
    rows.sort_by(|a, b| a.time.total_cmp(&b.time));
    rows
}

/// The time of `event` for task `uid`.
fn time_of(rows: &[Row], event: &str, uid: &str) -> f64 {
    let found: Vec<f64> = rows
        .iter()
        .filter(|r| r.event == event && r.uid == uid)
        .map(|r| r.time)
        .collect();
    assert_eq!(found.len(), 1, "one {event} for {uid}: {found:?}");
    found[0]
}

/// `schedule -> exec_start`, `exec_start -> exec_stop`, `exec_stop ->
/// collect` of task `uid`, in seconds.
fn durations(rows: &[Row], uid: &str) -> [f64; 3] {
    let t = ["schedule", "exec_start", "exec_stop", "collect"].map(|e| time_of(rows, e, uid));
    [t[1] - t[0], t[2] - t[1], t[3] - t[2]]
}

/// `host:ip` and `t_sys - t_ntp` of a `sync_abs` message, asserting mode `ntp`.
fn host_and_offset(msg: &str) -> (String, f64) {
    let parts: Vec<&str> = msg.split(':').collect();
    assert_eq!(parts.len(), 5, "sync_abs message {msg:?}");
    assert_eq!(parts[4], "ntp", "NTP-corrected: {msg:?}");
    let t = |s: &str| s.parse::<f64>().expect("a time");
    (
        format!("{}:{}", parts[0], parts[1]),
        t(parts[2]) - t(parts[3]),
    )
}

#[test]
fn a_mixed_session_analyses_like_its_pure_python_reference() {
    let python = std::env::var_os("ELIDE_RADICAL_PYTHON").filter(|p| !p.is_empty());
    let Some(python) = python else {
        // Straight to stderr: the test harness captures `println!`.
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED radical_analytics: ELIDE_RADICAL_PYTHON is not set (run .ci/radical-venv \
             and set it to the python path it prints)"
        );
        return;
    };
    let work = elide_tests::Scratch::dir("radical-session");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/radical/session.py");
    let out = elide_tests::run_with_deadline(
        Command::new(&python)
            .arg(script)
            .arg(&*work)
            .arg(env!("CARGO_BIN_EXE_radical_agent"))
            .arg(OFFSET.to_string())
            .current_dir(&*work)
            // The script names and places every profile itself.
            .env_remove("RADICAL_PROFILE_NAME")
            .env_remove("RADICAL_PROFILE_HOST"),
        Duration::from_secs(300),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "session.py failed:\n{stdout}\n{stderr}"
    );
    let report: Value = serde_json::from_str(stdout.lines().last().unwrap_or(""))
        .unwrap_or_else(|e| panic!("{e}: no JSON report in\n{stdout}\n{stderr}"));

    // Each elide process's sync_abs names the host as radical.utils does
    // and carries the NTP cache's offset, so one correction covers all.
    let sync = &report["sync"];
    let (client_host, client_off) = host_and_offset(sync["client"].as_str().unwrap());
    for agent in ["agent_0", "agent_1"] {
        let (host, off) = host_and_offset(sync[agent].as_str().expect(agent));
        assert_eq!(
            host, client_host,
            "{agent}'s host (PROFILE_HOST set: {})",
            report["host_set"]
        );
        assert!(
            (off - client_off).abs() < 1e-5,
            "{agent}: offset {off} vs {client_off}"
        );
    }
    assert!((client_off - OFFSET).abs() < 1e-5, "{client_off}");

    let mixed = rows(&report["mixed"]);
    let reference = rows(&report["reference"]);

    // The session starts at a sync_abs line (an elide one: the agents start
    // first), never before it.
    let t_start = report["mixed"]["t_start"].as_f64().expect("t_start");
    assert!(t_start >= 0.0, "t_start {t_start}");
    assert_eq!(mixed[0].event, "sync_abs", "first row {:?}", mixed[0]);
    assert!(
        mixed[0].comp.starts_with("agent_"),
        "the session's first profile is elide's: {:?}",
        mixed[0]
    );

    // Every task event sorts in the order the tasks ran.
    let order: Vec<(String, String)> = report["order"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_str().unwrap().into(), p[1].as_str().unwrap().into()))
        .collect();
    let sorted: Vec<(String, String)> = mixed
        .iter()
        .filter(|r| r.uid.starts_with("task."))
        .map(|r| (r.event.clone(), r.uid.clone()))
        .collect();
    assert_eq!(sorted, order, "causal order");

    // Each process's rows carry its own component name.
    let comps: BTreeSet<&str> = mixed.iter().map(|r| r.comp.as_str()).collect();
    assert_eq!(comps, BTreeSet::from(["agent_0", "agent_1", "client"]));
    for r in mixed.iter().filter(|r| r.uid.starts_with("task.")) {
        let n: usize = r.uid["task.".len()..].parse().unwrap();
        let want = match r.event.as_str() {
            "schedule" | "collect" => "client".to_owned(),
            _ => format!("agent_{}", n % 2),
        };
        assert_eq!(r.comp, want, "{r:?}");
    }

    // Per-task durations across the components equal the reference's.
    let uids: BTreeSet<&str> = mixed
        .iter()
        .filter(|r| r.uid.starts_with("task."))
        .map(|r| r.uid.as_str())
        .collect();
    assert_eq!(uids.len(), 6);
    let ref_start = report["reference"]["t_start"].as_f64().expect("t_start");
    println!("t_start: mixed {t_start:.6} s, reference {ref_start:.6} s");
    let mut worst: f64 = 0.0;
    for uid in uids {
        let (m, r) = (durations(&mixed, uid), durations(&reference, uid));
        println!(
            "{uid}: schedule->exec_start {:.6} (reference {:.6}), exec {:.6} ({:.6}), \
             exec_stop->collect {:.6} ({:.6}) s",
            m[0], r[0], m[1], r[1], m[2], r[2]
        );
        for (a, b) in m.iter().zip(r) {
            assert!((a - b).abs() < 1e-3, "{uid}: {m:?} vs reference {r:?}");
            worst = worst.max((a - b).abs());
        }
    }
    println!("largest difference from the reference: {worst:.1e} s");
}
