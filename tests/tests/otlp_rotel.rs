//! `OtlpSink` into rotel, a real OpenTelemetry collector written by others
//! (Streamfold's, in Rust; from PyPI: `.ci/rotel-venv` installs it and
//! prints the path of its `rotel-agent` binary). Set `ELIDE_ROTEL` to that
//! path; unset, the tests print a skip line and pass. rotel takes elide's
//! OTLP/HTTP requests, decodes them, batches and re-encodes them, and
//! exports over OTLP/HTTP to the receiver of `otlp_receiver.rs`, which
//! decodes them with the official protocol's types: what arrives there is
//! what a backend behind a collector would see. Run with
//! `ELIDE_ROTEL=$(.ci/rotel-venv) cargo test -p elide-tests --features otlp --test otlp_rotel -- --nocapture`.

#![cfg(feature = "otlp")]

mod otlp_receiver;

use elide_tests::serial;
use std::io::Read;
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use elide::sink::OtlpSink;
use elide::{LevelFilter, Sink};
use opentelemetry_proto::tonic::common::v1::{any_value, KeyValue};
use otlp_receiver::{Received, Receiver};

/// The tests replace the global sinks: one at a time.
/// The rotel-agent binary, or a printed skip.
fn rotel() -> Option<PathBuf> {
    let bin = std::env::var_os("ELIDE_ROTEL").map(PathBuf::from);
    if bin.is_none() {
        println!("skipped: ELIDE_ROTEL is unset (ELIDE_ROTEL=$(.ci/rotel-venv) runs this test)");
    }
    bin
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A running rotel; killed (and its log kept for messages) on drop.
struct Rotel {
    child: Child,
    port: u16,
    log: Arc<Mutex<String>>,
}

impl Rotel {
    /// Starts rotel with its OTLP/HTTP receiver on `port`, exporting to
    /// `to` over OTLP/HTTP without compression, batches sent every 100 ms;
    /// waits until it listens.
    fn start(bin: &PathBuf, port: u16, to: &str) -> Rotel {
        let pid_file =
            std::env::temp_dir().join(format!("elide-rotel-{}-{port}.pid", std::process::id()));
        let mut child = Command::new(bin)
            .args(["start", "--otlp-http-endpoint"])
            .arg(format!("127.0.0.1:{port}"))
            .arg("--otlp-grpc-endpoint")
            .arg(format!("127.0.0.1:{}", free_port()))
            .args(["--exporter", "otlp", "--otlp-exporter-protocol", "http"])
            .args([
                "--otlp-exporter-compression",
                "none",
                "--batch-timeout",
                "100ms",
            ])
            .arg("--otlp-exporter-endpoint")
            .arg(to)
            .arg("--pid-file")
            .arg(&pid_file)
            .env("NO_COLOR", "1")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start rotel");
        let log = Arc::new(Mutex::new(String::new()));
        let (mut err, l) = (child.stderr.take().unwrap(), log.clone());
        std::thread::spawn(move || {
            let mut buf = [0; 4096];
            while let Ok(n) = err.read(&mut buf) {
                if n == 0 {
                    break;
                }
                l.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        let deadline = Instant::now() + Duration::from_secs(30);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Ok(Some(status)) = child.try_wait() {
                panic!("rotel ended ({status}): {}", log.lock().unwrap());
            }
            assert!(Instant::now() < deadline, "rotel does not listen on {port}");
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = std::fs::remove_file(&pid_file);
        Rotel { child, port, log }
    }

    fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Its log lines at ERROR level.
    fn errors(&self) -> Vec<String> {
        let log = self.log.lock().unwrap();
        log.lines()
            .filter(|l| l.contains("ERROR"))
            .map(str::to_owned)
            .collect()
    }
}

impl Drop for Rotel {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn attr<'a>(attrs: &'a [KeyValue], key: &str) -> Option<&'a any_value::Value> {
    attrs
        .iter()
        .find(|a| a.key == key)
        .and_then(|a| a.value.as_ref())
        .and_then(|v| v.value.as_ref())
}

fn text(attrs: &[KeyValue], key: &str) -> String {
    match attr(attrs, key) {
        Some(any_value::Value::StringValue(s)) => s.clone(),
        other => panic!("{key}: {other:?}"),
    }
}

/// Waits until `done` holds for what arrived, at most 30 s.
fn wait_for(got: &Mutex<Received>, what: &str, done: impl Fn(&Received) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !done(&got.lock().unwrap()) {
        assert!(
            Instant::now() < deadline,
            "{what} did not arrive through rotel"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[elide::timed(name = "rotel.stage", n)]
fn stage(n: u64) {
    // A record inside a nested scope: its span is this stage's.
    elide::info!(stage = n, "in stage {n}");
    std::thread::sleep(Duration::from_millis(5 * n));
}

/// 10,000 records, scopes and counters through rotel: every record with
/// its severity, body and typed attributes; spans with their parents; a
/// record inside a scope, and one inside each of its two nested scopes,
/// with that span's trace and span ids as rotel passed the spans on (the
/// others with none); counters as cumulative sums equal to `elide::counters()`;
/// the resource.
#[test]
fn records_scopes_and_counters_arrive_through_rotel_intact() {
    let Some(bin) = rotel() else { return };
    let _g = serial();
    let rx = Receiver::start(0, Arc::default());
    let rotel = Rotel::start(&bin, free_port(), &rx.endpoint());
    let sink = Arc::new(
        OtlpSink::builder(&rotel.endpoint())
            .service_name("elide-rotel")
            .resource_attribute("deployment.environment", "ci")
            .export_interval(Duration::from_millis(100))
            .build()
            .unwrap(),
    );
    elide::set_sinks([sink.clone() as Arc<dyn Sink>]);
    elide::set_level(LevelFilter::Info);
    elide::set_telemetry(true);
    const N: u64 = 10_000;
    for i in 0..N {
        if i % 10 == 0 {
            elide::warn!(seq = i, ratio = i as f64 / 2.0, ok = false, "slow {i}");
        } else {
            elide::info!(seq = i, uid = format!("task.{i:06}"), "record {i}");
        }
    }
    {
        let _s = elide::scope!("rotel.task", uid = "task.000001");
        // Record N, the one inside a scope.
        elide::warn!(seq = N, ratio = N as f64 / 2.0, ok = false, "slow {N}");
        stage(1);
        stage(2);
    }
    const ALL: u64 = N + 1;
    for _ in 0..5 {
        elide::counter!("rotel.test.hits");
    }
    elide::flush();
    elide::set_sinks([]);
    let s = sink.stats();
    // And the two records inside the stages.
    assert_eq!(
        (s.logs, s.spans, s.failed, s.dropped),
        (ALL + 2, 3, 0, 0),
        "{s:?}"
    );
    let got = rx.got.clone();
    wait_for(&got, "every record, span and counter", |g| {
        g.logs.len() as u64 == ALL + 2
            && g.spans.len() == 3
            && g.counters.contains_key("rotel.test.hits")
    });
    let g = got.lock().unwrap();
    let root = g.spans.iter().find(|s| s.name == "rotel.task").unwrap();
    let mut seen = vec![false; ALL as usize];
    let mut in_stages = 0;
    for (_, l) in &g.logs {
        if let Some(any_value::Value::IntValue(n)) = attr(&l.attributes, "stage") {
            let stage = g
                .spans
                .iter()
                .find(|s| {
                    s.name == "rotel.stage"
                        && attr(&s.attributes, "n") == Some(&any_value::Value::IntValue(*n))
                })
                .unwrap_or_else(|| panic!("the span of stage {n}"));
            assert_eq!(
                (&l.trace_id, &l.span_id),
                (&stage.trace_id, &stage.span_id),
                "the record inside stage {n}"
            );
            in_stages += 1;
            continue;
        }
        let i = match attr(&l.attributes, "seq") {
            Some(any_value::Value::IntValue(i)) => *i as u64,
            other => panic!("seq: {other:?}"),
        };
        assert!(!seen[i as usize], "record {i} twice");
        seen[i as usize] = true;
        if i == N {
            assert_eq!(
                (&l.trace_id, &l.span_id),
                (&root.trace_id, &root.span_id),
                "the record inside rotel.task"
            );
        } else {
            assert!(l.trace_id.is_empty() && l.span_id.is_empty(), "{i}");
        }
        let body = match l.body.as_ref().and_then(|b| b.value.as_ref()) {
            Some(any_value::Value::StringValue(b)) => b.clone(),
            other => panic!("body {other:?}"),
        };
        if i % 10 == 0 {
            assert_eq!((l.severity_number, l.severity_text.as_str()), (13, "WARN"));
            assert_eq!(body, format!("slow {i}"));
            assert_eq!(
                attr(&l.attributes, "ratio"),
                Some(&any_value::Value::DoubleValue(i as f64 / 2.0))
            );
            assert_eq!(
                attr(&l.attributes, "ok"),
                Some(&any_value::Value::BoolValue(false))
            );
        } else {
            assert_eq!((l.severity_number, l.severity_text.as_str()), (9, "INFO"));
            assert_eq!(body, format!("record {i}"));
            assert_eq!(text(&l.attributes, "uid"), format!("task.{i:06}"));
        }
    }
    assert!(seen.iter().all(|s| *s));
    assert_eq!(in_stages, 2);
    assert!(root.parent_span_id.is_empty());
    for s in g.spans.iter().filter(|s| s.name == "rotel.stage") {
        assert_eq!(
            (&s.trace_id, &s.parent_span_id),
            (&root.trace_id, &root.span_id)
        );
        assert!(root.start_time_unix_nano <= s.start_time_unix_nano);
        assert!(s.end_time_unix_nano <= root.end_time_unix_nano);
    }
    assert_eq!(
        g.counters["rotel.test.hits"],
        elide::counters()["rotel.test.hits"] as i64
    );
    assert_eq!(text(&g.resource, "service.name"), "elide-rotel");
    assert_eq!(text(&g.resource, "deployment.environment"), "ci");
    drop(g);
    assert!(
        rotel.errors().is_empty(),
        "rotel logged errors: {:?}",
        rotel.errors()
    );
}

/// rotel killed mid-run and started again on the same port: no caller
/// call waits for it, the sink's accounting is exact (logs + failed +
/// dropped = emitted), and exports resume once it is back.
#[test]
fn rotel_killed_and_restarted_mid_run_loses_only_what_is_counted() {
    let Some(bin) = rotel() else { return };
    let _g = serial();
    let rx = Receiver::start(0, Arc::default());
    let port = free_port();
    let rotel = Rotel::start(&bin, port, &rx.endpoint());
    let sink = Arc::new(
        OtlpSink::builder(&rotel.endpoint())
            .retry_for(Duration::from_millis(500))
            .build()
            .unwrap(),
    );
    elide::set_sinks([sink.clone() as Arc<dyn Sink>]);
    elide::set_level(LevelFilter::Info);
    let mut longest = Duration::ZERO;
    let mut burst = |phase: &str| {
        for i in 0..5_000u64 {
            let t = Instant::now();
            elide::info!(seq = i, phase, "{phase} {i}");
            longest = longest.max(t.elapsed());
        }
    };
    burst("up");
    elide::flush();
    drop(rotel);
    burst("down");
    std::thread::sleep(Duration::from_millis(700));
    let rotel = Rotel::start(&bin, port, &rx.endpoint());
    burst("back");
    elide::flush();
    elide::set_sinks([]);
    let s = sink.stats();
    println!("rotel killed and restarted: longest call {longest:?}, {s:?}");
    assert_eq!(s.logs + s.failed + s.dropped, 15_000, "{s:?}");
    let got = rx.got.clone();
    wait_for(&got, "the records after the restart", |g| {
        g.logs
            .iter()
            .any(|(_, l)| matches!(attr(&l.attributes, "phase"), Some(any_value::Value::StringValue(p)) if p == "back"))
    });
    drop(rotel);
    rx.stop();
}
