//! `OtlpSink` into the OpenTelemetry Collector binary, when one is on
//! `PATH` (`otelcol-contrib` or `otelcol`; both distributions have the
//! `file` exporter). The test writes the collector's configuration (OTLP
//! HTTP receiver on a free loopback port, file exporter to a temporary
//! file), starts it, sends records, scopes and counters, and reads them back
//! from the file (OTLP JSON, one request per line). Without a collector it
//! prints a skip line and passes. Run with
//! `cargo test -p elide-tests --features otlp --test otlp_collector -- --nocapture`.

#![cfg(feature = "otlp")]

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use elide::sink::OtlpSink;
use elide::{LevelFilter, Sink};
use serde_json::Value;

const RECORDS: u64 = 1_000;

/// The collector binary on `PATH`, if any.
fn collector() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    ["otelcol-contrib", "otelcol"].iter().find_map(|name| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(name))
            .find(|p| p.is_file())
    })
}

/// Kills the collector however the test ends.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

fn start(bin: &Path, dir: &Path, port: u16, out: &Path) -> Running {
    let config = dir.join("collector.yaml");
    std::fs::write(
        &config,
        format!(
            "receivers:\n  otlp:\n    protocols:\n      http:\n        endpoint: 127.0.0.1:{port}\n\
             exporters:\n  file:\n    path: {}\n\
             service:\n  telemetry:\n    metrics:\n      level: none\n  pipelines:\n\
             \x20   logs: {{receivers: [otlp], exporters: [file]}}\n\
             \x20   traces: {{receivers: [otlp], exporters: [file]}}\n\
             \x20   metrics: {{receivers: [otlp], exporters: [file]}}\n",
            out.display()
        ),
    )
    .unwrap();
    let child = Command::new(bin)
        .arg(format!("--config={}", config.display()))
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(dir.join("collector.stderr")).unwrap())
        .spawn()
        .expect("start the collector");
    let running = Running(child);
    let deadline = Instant::now() + Duration::from_secs(30);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            Instant::now() < deadline,
            "the collector did not listen on {port} within 30 s: {}",
            std::fs::read_to_string(dir.join("collector.stderr")).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    running
}

/// What the file holds: log bodies, span (name, span id, parent id), the
/// last value of each counter, and the service names.
#[derive(Default, Debug)]
struct Exported {
    bodies: Vec<String>,
    spans: Vec<(String, String, String)>,
    counters: std::collections::HashMap<String, i64>,
    services: Vec<String>,
}

/// A JSON array under `key`, or none.
fn each<'a>(v: &'a Value, key: &str) -> impl Iterator<Item = &'a Value> {
    v.get(key).and_then(Value::as_array).into_iter().flatten()
}

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

fn read(out: &Path) -> Exported {
    let mut e = Exported::default();
    let text = std::fs::read_to_string(out).unwrap_or_default();
    // The last line may be half written.
    for req in text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
    {
        for (resources, scopes, items) in [
            ("resourceLogs", "scopeLogs", "logRecords"),
            ("resourceSpans", "scopeSpans", "spans"),
            ("resourceMetrics", "scopeMetrics", "metrics"),
        ] {
            for r in each(&req, resources) {
                for a in each(&r["resource"], "attributes") {
                    if a["key"] == "service.name" {
                        e.services
                            .push(str_of(&a["value"], "stringValue").to_owned());
                    }
                }
                for item in each(r, scopes).flat_map(|s| each(s, items)) {
                    match items {
                        "logRecords" => e
                            .bodies
                            .push(str_of(&item["body"], "stringValue").to_owned()),
                        "spans" => e.spans.push((
                            str_of(item, "name").to_owned(),
                            str_of(item, "spanId").to_owned(),
                            str_of(item, "parentSpanId").to_owned(),
                        )),
                        _ => {
                            // OTLP JSON writes 64-bit integers as strings.
                            let point = each(&item["sum"], "dataPoints").last();
                            let v = point.and_then(|p| match &p["asInt"] {
                                Value::String(s) => s.parse().ok(),
                                n => n.as_i64(),
                            });
                            if let Some(v) = v {
                                e.counters.insert(str_of(item, "name").to_owned(), v);
                            }
                        }
                    }
                }
            }
        }
    }
    e
}

#[test]
fn records_scopes_and_counters_reach_the_collectors_file() {
    let Some(bin) = collector() else {
        println!(
            "skipped: no otelcol-contrib or otelcol on PATH; the OpenTelemetry Collector test did not run"
        );
        return;
    };
    let dir = elide_tests::Scratch::dir("otelcol");
    let out = dir.join("exported.json");
    let port = free_port();
    let _collector = start(&bin, &dir, port, &out);

    let sink = Arc::new(
        OtlpSink::builder(&format!("http://127.0.0.1:{port}"))
            .service_name("elide-collector-test")
            .build()
            .unwrap(),
    );
    elide::set_sinks([sink.clone() as Arc<dyn Sink>]);
    elide::set_level(LevelFilter::Info);
    elide::set_telemetry(true);
    for i in 0..RECORDS {
        elide::info!(i, "collector {i}");
    }
    {
        let _outer = elide::scope!("collector.outer");
        let _inner = elide::scope!("collector.inner");
    }
    for _ in 0..5 {
        elide::counter!("collector.test.hits");
    }
    elide::flush();
    elide::set_sinks([]);
    let stats = sink.stats();
    assert_eq!((stats.failed, stats.dropped), (0, 0), "{stats:?}");
    let hits = elide::counters()["collector.test.hits"] as i64;

    // The file exporter writes on its own schedule.
    let deadline = Instant::now() + Duration::from_secs(30);
    let got = loop {
        let got = read(&out);
        let done = got.bodies.len() as u64 >= RECORDS
            && got.spans.len() >= 2
            && got.counters.get("collector.test.hits") == Some(&hits);
        if done || Instant::now() > deadline {
            break got;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let mut bodies = got.bodies.clone();
    bodies.sort();
    bodies.dedup();
    let mut want: Vec<String> = (0..RECORDS).map(|i| format!("collector {i}")).collect();
    want.sort();
    assert_eq!(bodies, want, "every record once");
    assert_eq!(got.bodies.len() as u64, RECORDS, "no duplicates");
    let span = |name: &str| got.spans.iter().find(|s| s.0 == name).cloned();
    let (outer, inner) = (span("collector.outer"), span("collector.inner"));
    let (outer, inner) = (outer.expect("outer span"), inner.expect("inner span"));
    assert_eq!(inner.2, outer.1, "inner's parent is outer");
    assert_eq!(got.counters.get("collector.test.hits"), Some(&hits));
    assert!(got.services.iter().all(|s| s == "elide-collector-test"));
    drop(sink);
}
