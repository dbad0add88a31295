//! The JSON-lines telemetry sink, checked with `serde_json`.

use std::sync::Arc;

use elide::telemetry::JsonSink;
use elide::{telemetry, Sink};
use serde_json::{json, Value};

struct Shown;
impl std::fmt::Display for Shown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("shown \"quoted\"")
    }
}

#[test]
fn each_event_is_one_typed_json_object() {
    let dir = elide_tests::Scratch::path("json");
    let path = dir.join("sub").join("events.jsonl");
    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    let sink = Arc::new(JsonSink::open(&path).unwrap());
    assert_eq!(sink.max_level(), elide::LevelFilter::Off);
    elide::set_sinks([sink.clone() as Arc<dyn Sink>]);
    elide::set_telemetry(true);
    // A log site stays off: the sink wants telemetry only.
    let mut log_args_evaluated = false;
    elide::error!("not for this sink {}", {
        log_args_evaluated = true;
        1
    });
    assert!(!log_args_evaluated);

    telemetry!(
        target: "radical.pilot",
        "task.state",
        uid = "task.000001",
        state = "DONE",
        n = -3i32,
        big = u64::MAX,
        ratio = 0.25,
        nan = f64::NAN,
        ok = false,
        c = 'x',
        text = "line\none \"q\" \\ ,",
        shown = %Shown,
        dbg = ?vec![1, 2],
    );
    let t = std::thread::Builder::new()
        .name("worker-7".into())
        .spawn(|| telemetry!("from.worker"))
        .unwrap();
    t.join().unwrap();
    elide::flush();
    let after = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();

    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    let objs: Vec<Value> = lines
        .iter()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();

    let a = &objs[0];
    let time = a["time"].as_f64().unwrap();
    // Seven decimals are written; allow their rounding at the bounds.
    assert!(before - 1e-6 <= time && time <= after + 1e-6);
    assert_eq!(a["event"], "task.state");
    assert_eq!(a["target"], "radical.pilot");
    assert_eq!(
        a["thread"],
        std::thread::current().name().unwrap(),
        "the test harness names its threads"
    );
    assert_eq!(a["tid"], elide::thread_number());
    assert_eq!(a["pid"], std::process::id());
    assert_eq!(
        a["fields"],
        json!({
            "uid": "task.000001",
            "state": "DONE",
            "n": -3,
            "big": u64::MAX,
            "ratio": 0.25,
            "nan": "NaN",
            "ok": false,
            "c": "x",
            "text": "line\none \"q\" \\ ,",
            "shown": "shown \"quoted\"",
            "dbg": "[1, 2]",
        })
    );
    assert_eq!(a.as_object().unwrap().len(), 7, "no unexpected keys: {a}");

    let b = &objs[1];
    assert_eq!(b["event"], "from.worker");
    assert_eq!(b["target"], "telemetry_json");
    assert_eq!(b["thread"], "worker-7");
    assert_eq!(b["fields"], json!({}));
    assert!(b["time"].as_f64().unwrap() >= time);

    elide::set_sinks([]);
    drop(sink);
}
