//! `OtlpSink` against a real OTLP/HTTP receiver on loopback, started here
//! (`otlp_receiver.rs`: decodes each request with the official protocol's
//! prost types, `opentelemetry-proto`). Run with
//! `cargo test -p elide-tests --features otlp --test otlp`. Tests replace
//! the global sinks, so they run one at a time.

#![cfg(feature = "otlp")]

mod otlp_receiver;

use elide_tests::serial;
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use elide::sink::OtlpSink;
use elide::{LevelFilter, Sink};
use opentelemetry_proto::tonic::common::v1::{any_value, AnyValue, KeyValue};
use opentelemetry_proto::tonic::trace::v1::Span;
use otlp_receiver::{Received, Receiver};

fn attr<'a>(attrs: &'a [KeyValue], key: &str) -> Option<&'a any_value::Value> {
    attrs
        .iter()
        .find(|a| a.key == key)
        .and_then(|a| a.value.as_ref())
        .and_then(|v: &AnyValue| v.value.as_ref())
}

fn int(attrs: &[KeyValue], key: &str) -> i64 {
    match attr(attrs, key) {
        Some(any_value::Value::IntValue(n)) => *n,
        other => panic!("{key}: {other:?}"),
    }
}

fn text<'a>(attrs: &'a [KeyValue], key: &str) -> &'a str {
    match attr(attrs, key) {
        Some(any_value::Value::StringValue(s)) => s,
        other => panic!("{key}: {other:?}"),
    }
}

fn nanos(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH).unwrap().as_nanos() as u64
}

fn install(sink: &Arc<OtlpSink>) {
    elide::set_sinks([sink.clone() as Arc<dyn Sink>]);
    elide::set_level(LevelFilter::Info);
    elide::set_telemetry(true);
}

#[test]
fn records_from_four_threads_all_arrive_intact() {
    let _g = serial();
    let rx = Receiver::start(0, Arc::default());
    // The export buffer holds the whole burst: this test is about every
    // record arriving intact, not about what a slow collector costs (the
    // receiver shares a loaded machine; otlp_faults covers a slow one).
    let sink = Arc::new(
        OtlpSink::builder(&rx.endpoint())
            .service_name("elide-otlp-test")
            .buffer(100_000)
            .build()
            .unwrap(),
    );
    install(&sink);
    const THREADS: u64 = 4;
    const PER: u64 = 25_000;
    let before = nanos(SystemTime::now());
    let t0 = Instant::now();
    let threads: Vec<_> = (0..THREADS)
        .map(|t| {
            std::thread::Builder::new()
                .name(format!("w{t}"))
                .spawn(move || {
                    for i in 0..PER {
                        if i % 1000 == 999 {
                            elide::warn!(worker = t, seq = i, ok = false, "slow {t}/{i}");
                        } else {
                            elide::info!(worker = t, seq = i, uid = %format_args!("task.{i:06}"), "record {t}/{i}");
                        }
                    }
                })
                .unwrap()
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let enqueued = t0.elapsed();
    elide::flush();
    let total = t0.elapsed();
    let after = nanos(SystemTime::now());
    elide::set_sinks([]);
    let stats = sink.stats();
    println!(
        "100,000 records: enqueued in {enqueued:?}, all exported in {total:?} ({:.0} records/s end to end); {stats:?}",
        100_000.0 / total.as_secs_f64()
    );
    let got = rx.got.lock().unwrap();
    assert_eq!(stats.logs, THREADS * PER);
    assert_eq!((stats.failed, stats.dropped), (0, 0));
    assert_eq!(got.logs.len() as u64, THREADS * PER);
    assert_eq!(text(&got.resource, "service.name"), "elide-otlp-test");
    assert_eq!(
        int(&got.resource, "process.pid"),
        i64::from(std::process::id())
    );
    assert!(!text(&got.resource, "host.name").is_empty());
    let mut seen = vec![vec![false; PER as usize]; THREADS as usize];
    let mut last_time = vec![0u64; THREADS as usize];
    for (scope, l) in &got.logs {
        assert_eq!(scope, module_path!(), "target as instrumentation scope");
        let (t, i) = (int(&l.attributes, "worker"), int(&l.attributes, "seq"));
        let body = match l.body.as_ref().and_then(|b| b.value.as_ref()) {
            Some(any_value::Value::StringValue(s)) => s.clone(),
            other => panic!("body {other:?}"),
        };
        if i % 1000 == 999 {
            assert_eq!((l.severity_number, l.severity_text.as_str()), (13, "WARN"));
            assert_eq!(body, format!("slow {t}/{i}"));
            assert_eq!(
                attr(&l.attributes, "ok"),
                Some(&any_value::Value::BoolValue(false))
            );
        } else {
            assert_eq!((l.severity_number, l.severity_text.as_str()), (9, "INFO"));
            assert_eq!(body, format!("record {t}/{i}"));
            assert_eq!(text(&l.attributes, "uid"), format!("task.{i:06}"));
        }
        assert_eq!(text(&l.attributes, "thread.name"), format!("w{t}"));
        assert!(before <= l.time_unix_nano && l.time_unix_nano <= after);
        // The caller's clock: per thread, times follow the order of calls.
        let w = t as usize;
        assert!(last_time[w] <= l.time_unix_nano || !seen[w].iter().all(|s| !s));
        last_time[w] = l.time_unix_nano;
        assert!(!seen[w][i as usize], "duplicate {t}/{i}");
        seen[w][i as usize] = true;
    }
    assert!(seen.iter().flatten().all(|s| *s));
    drop(got);
    drop(sink);
    rx.stop();
}

#[elide::timed(name = "stage", n)]
fn stage(n: u64) {
    std::thread::sleep(Duration::from_millis(10 * n));
}

#[test]
fn scopes_arrive_as_spans_with_parents_and_counters_as_sums() {
    let _g = serial();
    let rx = Receiver::start(0, Arc::default());
    let sink = Arc::new(
        OtlpSink::builder(&rx.endpoint())
            .export_interval(Duration::from_millis(50))
            .build()
            .unwrap(),
    );
    install(&sink);
    {
        let _s = elide::scope!("task.exec", uid = "task.000001");
        stage(1);
        stage(2);
        elide::telemetry!("task.state", uid = "task.000001", state = "DONE");
    }
    for _ in 0..7 {
        elide::counter!("otlp.test.hits");
    }
    elide::counter!("otlp.test.bytes", 4096);
    elide::flush();
    elide::set_sinks([]);
    let got = rx.got.lock().unwrap();
    assert_eq!(got.spans.len(), 3, "{:?}", got.spans);
    let by_name = |n: &'static str| got.spans.iter().filter(move |s| s.name == n);
    let root = by_name("task.exec").next().unwrap();
    assert!(root.parent_span_id.is_empty());
    assert_eq!(root.trace_id.len(), 16);
    assert_eq!(root.span_id.len(), 8);
    assert_eq!(text(&root.attributes, "uid"), "task.000001");
    let stages: Vec<&Span> = by_name("stage").collect();
    assert_eq!(stages.len(), 2);
    for (s, n) in stages.iter().zip([1i64, 2]) {
        assert_eq!(s.parent_span_id, root.span_id, "child of task.exec");
        assert_eq!(s.trace_id, root.trace_id);
        assert_eq!(int(&s.attributes, "n"), n);
        let d = s.end_time_unix_nano - s.start_time_unix_nano;
        assert!(d >= 10_000_000 * n as u64, "{d} ns");
        assert!(root.start_time_unix_nano <= s.start_time_unix_nano);
        assert!(s.end_time_unix_nano <= root.end_time_unix_nano);
    }
    assert!(root.end_time_unix_nano - root.start_time_unix_nano >= 30_000_000);
    // The telemetry event is a log record named by its event.
    let ev: Vec<_> = got
        .logs
        .iter()
        .filter(|(_, l)| l.event_name == "task.state")
        .collect();
    assert_eq!(ev.len(), 1);
    assert_eq!(text(&ev[0].1.attributes, "state"), "DONE");
    // Counters: the last export equals elide::counters().
    let now = elide::counters();
    for name in ["otlp.test.hits", "otlp.test.bytes"] {
        assert_eq!(
            got.counters.get(name).copied(),
            Some(now[name] as i64),
            "{name}"
        );
    }
    assert_eq!(got.counters["otlp.test.bytes"], 4096);
    drop(got);
    drop(sink);
    rx.stop();
}

#[elide::instrument(skip_all, fields(bytes = 512), level = "info")]
fn upload() {
    elide::warn!(retry = 1, "slow upload");
}

/// A span with telemetry on is an OTLP span (parented to the span it
/// opened in), and a log record inside spans carries their chain as the
/// attribute `spans`, outermost first, each span's fields apart from the
/// record's.
#[test]
fn spans_arrive_as_otlp_spans_and_their_chain_on_log_records() {
    let _g = serial();
    let rx = Receiver::start(0, Arc::default());
    let sink = Arc::new(OtlpSink::builder(&rx.endpoint()).build().unwrap());
    install(&sink);
    elide::info_span!("request", id = 7).in_scope(upload);
    elide::flush();
    elide::set_sinks([]);
    let got = rx.got.lock().unwrap();
    let span = |n: &str| got.spans.iter().find(|s| s.name == n).unwrap();
    let (request, up) = (span("request"), span("upload"));
    assert_eq!(int(&request.attributes, "id"), 7);
    assert_eq!(up.parent_span_id, request.span_id);
    assert_eq!(up.trace_id, request.trace_id);
    let (_, log) = got
        .logs
        .iter()
        .find(|(_, l)| l.event_name.is_empty())
        .expect("the warning");
    assert_eq!(int(&log.attributes, "retry"), 1);
    let Some(any_value::Value::ArrayValue(chain)) = attr(&log.attributes, "spans") else {
        panic!("no spans attribute: {:?}", log.attributes)
    };
    let names: Vec<(String, Vec<String>)> = chain
        .values
        .iter()
        .map(|v| match &v.value {
            Some(any_value::Value::KvlistValue(kv)) => {
                let name = text(&kv.values, "name").to_owned();
                let fields = match attr(&kv.values, "fields") {
                    Some(any_value::Value::KvlistValue(f)) => {
                        f.values.iter().map(|kv| kv.key.clone()).collect()
                    }
                    other => panic!("fields: {other:?}"),
                };
                (name, fields)
            }
            other => panic!("span: {other:?}"),
        })
        .collect();
    assert_eq!(
        names,
        [
            ("request".to_owned(), vec!["id".to_owned()]),
            ("upload".to_owned(), vec!["bytes".to_owned()]),
        ]
    );
    drop(got);
    drop(sink);
    rx.stop();
}

#[test]
fn receiver_down_then_back_what_is_missing_is_counted() {
    let _g = serial();
    let got: Arc<Mutex<Received>> = Arc::default();
    let rx = Receiver::start(0, got.clone());
    let sink = Arc::new(
        OtlpSink::builder(&rx.endpoint())
            .batch_size(100)
            .export_interval(Duration::from_millis(20))
            .retry_for(Duration::from_millis(300))
            .request_timeout(Duration::from_millis(500))
            .capacity(1000)
            // The default, Block: callers still never wait on the
            // collector (the exporter drops instead), and the queue sends
            // no "records dropped" notices to blur the count.
            .build()
            .unwrap(),
    );
    install(&sink);
    let mut emitted = 0u64;
    let mut burst = |n: u64, phase: &str| {
        for i in 0..n {
            elide::info!(i, phase, "fault {phase} {i}");
            emitted += 1;
        }
    };
    burst(2000, "up");
    elide::flush();
    let (port, _) = rx.stop();
    burst(2000, "down");
    // Longer than retry_for: the batches sent meanwhile fail.
    elide::flush();
    std::thread::sleep(Duration::from_millis(400));
    let rx = Receiver::start(port, got.clone());
    burst(2000, "back");
    elide::flush();
    elide::set_sinks([]);
    // Ours: the `AsyncSink` queue also sends its "N records dropped" notices.
    let ours = || {
        let g = got.lock().unwrap();
        let n = g
            .logs
            .iter()
            .filter(|(_, l)| attr(&l.attributes, "phase").is_some())
            .count();
        (n as u64, g.logs.len() as u64)
    };
    // Batches still retrying when the flush gave up settle within retry_for.
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        let s = sink.stats();
        if ours().0 + s.failed + s.dropped == emitted {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let s = sink.stats();
    let (received, all) = ours();
    println!(
        "fault test: emitted {emitted}, received {received} (+{} notices), {s:?}",
        all - received
    );
    assert_eq!(s.logs, all, "the sink counts what arrived");
    assert_eq!(
        emitted - received,
        s.failed + s.dropped,
        "missing = failed + dropped"
    );
    assert!(s.failed > 0, "the down phase lost batches: {s:?}");
    let back = got
        .lock()
        .unwrap()
        .logs
        .iter()
        .filter(|(_, l)| matches!(attr(&l.attributes, "phase"), Some(any_value::Value::StringValue(p)) if p == "back"))
        .count() as u64;
    assert!(back > 0, "exports resume once the receiver is back");
    drop(sink);
    rx.stop();
}

#[test]
fn malformed_endpoint_is_an_error_not_a_panic() {
    // Without TLS compiled in, https names the feature that brings it.
    #[cfg(not(feature = "otlp-tls"))]
    {
        let e = OtlpSink::builder("https://collector:4318")
            .build()
            .unwrap_err();
        assert!(e.to_string().contains("`otlp-tls`"), "{e}");
    }
    let e = OtlpSink::builder("collector").build().unwrap_err();
    assert!(e.to_string().contains("collector"), "{e}");
    // Nothing listens on a closed port: the sink still builds, and
    // dropping it gives up within its bounded shutdown wait.
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    drop(l);
    let sink = OtlpSink::builder(&format!("http://127.0.0.1:{port}"))
        .retry_for(Duration::from_millis(100))
        .shutdown_timeout(Duration::from_secs(2))
        .build()
        .unwrap();
    let t = Instant::now();
    drop(sink);
    assert!(t.elapsed() < Duration::from_secs(5));
}

/// The `service.name` an `otlp` LOG_TGT entry sends from a real program
/// (env-probe) run with `vars` and `args`; the child has 30 s.
fn service_name_of(vars: &[(&str, &str)], args: &[&str]) -> String {
    let rx = Receiver::start(0, Arc::default());
    let target = format!("otlp://127.0.0.1:{}", rx.port);
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_env-probe"))
        .env_clear()
        // The program's own variable, or the root's after `init_ns`.
        .env(
            if args[0].starts_with("ns:radical") {
                "RADICAL_LOG_TGT"
            } else {
                "ENV_PROBE_LOG_TGT"
            },
            &target,
        )
        .envs(vars.iter().copied())
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run env-probe");
    let deadline = Instant::now() + Duration::from_secs(30);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("env-probe {args:?} with {vars:?} hung for 30 s");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{args:?} {vars:?}: {stderr}");
    let (_, got) = rx.stop();
    let got = got.lock().unwrap();
    assert!(
        !got.logs.is_empty(),
        "{args:?} {vars:?}: nothing arrived; {stderr}"
    );
    text(&got.resource, "service.name").to_owned()
}

#[test]
fn default_service_name_is_otel_service_name_else_root_namespace_else_executable() {
    let root = ["ns:radical.asyncflow", "emit"];
    let no_root = ["init", "emit"];
    let named = [("OTEL_SERVICE_NAME", "checkout")];
    assert_eq!(service_name_of(&named, &root), "checkout");
    assert_eq!(service_name_of(&named, &no_root), "checkout");
    assert_eq!(service_name_of(&[], &root), "radical.asyncflow");
    assert_eq!(service_name_of(&[], &no_root), "env-probe");
    // A blank variable is not set.
    assert_eq!(
        service_name_of(&[("OTEL_SERVICE_NAME", " ")], &no_root),
        "env-probe"
    );
}

/// A collector that takes connections and never answers (sink_child
/// `otlp-stalled`): the first failed export is reported, once (the later
/// ones are only counted), and a flush that runs out of time says how many
/// records it left unsent; one that leaves none says nothing.
#[test]
fn a_stalled_collector_is_reported_once_and_a_flush_says_what_it_left() {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_sink_child"))
        .arg("otlp-stalled")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run sink_child");
    let deadline = Instant::now() + Duration::from_secs(30);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("sink_child otlp-stalled hung for 30 s");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let reports = stderr.matches("elide: OTLP export to ").count();
    assert_eq!(reports, 1, "one report of the failures: {stderr}");
    // "elide: OTLP <url>: flush gave up; <n> records not yet sent"
    let left: Vec<u64> = stderr
        .lines()
        .filter_map(|l| l.strip_suffix(" records not yet sent"))
        .map(|l| l.rsplit_once("; ").unwrap().1.parse().unwrap())
        .collect();
    assert!(
        !left.is_empty() && left.iter().all(|n| *n > 0),
        "{left:?}: {stderr}"
    );
}

/// Log records and telemetry events emitted inside a scope carry the trace
/// and span ids of the span the receiver gets for that scope (the
/// innermost one open on the emitting thread, on its thread even though
/// the exporter converts them elsewhere); outside any scope, none. JSON
/// lines (`Format::Json`, `telemetry::JsonSink`) carry the same ids, in
/// hex, as `trace_id` and `span_id`.
#[test]
fn records_inside_scopes_carry_their_spans_ids() {
    let _g = serial();
    let rx = Receiver::start(0, Arc::default());
    let sink = Arc::new(OtlpSink::builder(&rx.endpoint()).build().unwrap());
    let dir = std::env::temp_dir().join(format!("elide-otlp-ids-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (logs_file, events_file) = (dir.join("logs.jsonl"), dir.join("events.jsonl"));
    let json_logs = elide::sink::FileSink::open(&logs_file)
        .unwrap()
        .with_format(elide::format::Format::Json);
    let json_events = elide::telemetry::JsonSink::open(&events_file).unwrap();
    elide::set_sinks([
        sink.clone() as Arc<dyn Sink>,
        Arc::new(json_logs),
        Arc::new(json_events),
    ]);
    elide::set_level(LevelFilter::Info);
    elide::set_telemetry(true);
    elide::info!("outside");
    {
        let _outer = elide::scope!("ids.outer");
        elide::info!("in outer");
        {
            let _inner = elide::scope!("ids.inner");
            elide::warn!(n = 1, "in inner");
            elide::telemetry!("ids.event", n = 2);
        }
        elide::info!("in outer again");
        // Another thread has its own scopes: none here.
        std::thread::spawn(|| elide::info!("on a thread without scopes"))
            .join()
            .unwrap();
    }
    elide::flush();
    elide::set_sinks([]);
    let got = rx.got.lock().unwrap();
    let span = |name: &str| {
        let s = got.spans.iter().find(|s| s.name == name).unwrap();
        (s.trace_id.clone(), s.span_id.clone())
    };
    let (outer, inner) = (span("ids.outer"), span("ids.inner"));
    assert_eq!(outer.0, inner.0, "one trace");
    let ids_of = |what: &str| {
        let (_, l) = got
            .logs
            .iter()
            .find(|(_, l)| {
                l.event_name == what
                    || matches!(
                        l.body.as_ref().and_then(|b| b.value.as_ref()),
                        Some(any_value::Value::StringValue(s)) if s == what
                    )
            })
            .unwrap_or_else(|| panic!("{what} did not arrive"));
        (l.trace_id.clone(), l.span_id.clone())
    };
    let none = (Vec::new(), Vec::new());
    assert_eq!(ids_of("outside"), none);
    assert_eq!(ids_of("in outer"), outer);
    assert_eq!(ids_of("in inner"), inner);
    assert_eq!(ids_of("ids.event"), inner);
    assert_eq!(ids_of("in outer again"), outer);
    assert_eq!(ids_of("on a thread without scopes"), none);
    // JSON: the same ids in hex.
    let hex = |b: &[u8]| b.iter().map(|b| format!("{b:02x}")).collect::<String>();
    let lines = |f: &std::path::Path| -> Vec<serde_json::Value> {
        std::fs::read_to_string(f)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let json_ids = |l: &serde_json::Value| {
        (
            l["trace_id"].as_str().map(str::to_owned),
            l["span_id"].as_str().map(str::to_owned),
        )
    };
    let some_hex = |(t, s): &(Vec<u8>, Vec<u8>)| (Some(hex(t)), Some(hex(s)));
    let logs = lines(&logs_file);
    let log = |msg: &str| logs.iter().find(|l| l["msg"] == msg).unwrap();
    assert_eq!(json_ids(log("outside")), (None, None));
    assert_eq!(json_ids(log("in outer")), some_hex(&outer));
    assert_eq!(json_ids(log("in inner")), some_hex(&inner));
    let events = lines(&events_file);
    let event = events.iter().find(|e| e["event"] == "ids.event").unwrap();
    assert_eq!(json_ids(event), some_hex(&inner));
    drop(got);
    drop(sink);
    rx.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

/// A scope handed to another thread (`ScopeHandle::current` /
/// `ScopeGuard::handle` and `ScopeHandle::in_scope`): what is opened there is its child, in its
/// trace, and what is emitted there carries its ids; after `in_scope`, the
/// thread has no scope again.
#[test]
fn a_scope_handed_to_another_thread_parents_what_is_opened_there() {
    let _g = serial();
    let rx = Receiver::start(0, Arc::default());
    let sink = Arc::new(OtlpSink::builder(&rx.endpoint()).build().unwrap());
    install(&sink);
    {
        let parent = elide::scope!("handoff.parent");
        let handle = parent.as_ref().map(|g| g.handle()).unwrap();
        assert_eq!(handle, elide::telemetry::ScopeHandle::current());
        std::thread::spawn(move || {
            handle.in_scope(|| {
                elide::info!("handed");
                let _child = elide::scope!("handoff.child");
                elide::info!("in the child");
            });
            elide::info!("after in_scope");
            let _own = elide::scope!("handoff.own");
        })
        .join()
        .unwrap();
    }
    elide::flush();
    elide::set_sinks([]);
    let got = rx.got.lock().unwrap();
    let span = |name: &str| got.spans.iter().find(|s| s.name == name).unwrap();
    let (parent, child, own) = (
        span("handoff.parent"),
        span("handoff.child"),
        span("handoff.own"),
    );
    assert_eq!(child.parent_span_id, parent.span_id);
    assert_eq!(child.trace_id, parent.trace_id);
    assert!(own.parent_span_id.is_empty(), "a trace of its own");
    assert_ne!(own.trace_id, parent.trace_id);
    let ids_of = |msg: &str| {
        let (_, l) = got
            .logs
            .iter()
            .find(|(_, l)| {
                matches!(
                    l.body.as_ref().and_then(|b| b.value.as_ref()),
                    Some(any_value::Value::StringValue(s)) if s == msg
                )
            })
            .unwrap();
        (l.trace_id.clone(), l.span_id.clone())
    };
    assert_eq!(
        ids_of("handed"),
        (parent.trace_id.clone(), parent.span_id.clone())
    );
    assert_eq!(
        ids_of("in the child"),
        (child.trace_id.clone(), child.span_id.clone())
    );
    assert_eq!(ids_of("after in_scope"), (Vec::new(), Vec::new()));
    drop(got);
    drop(sink);
    rx.stop();
}
