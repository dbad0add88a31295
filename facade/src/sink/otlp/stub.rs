//! A stand-in OTLP/HTTP collector for the unit tests: a loopback listener
//! that keeps every request (path, head, body), answers each with the
//! status the test chose, and holds its answer while the test says so.

use std::collections::{BTreeMap, VecDeque};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceRequest;
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::logs::v1::LogRecord;
use opentelemetry_proto::tonic::metrics::v1::{metric, number_data_point};
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;

use super::http::Endpoint;

/// How long a test waits for something the exporter must do.
pub(super) const PATIENCE: Duration = Duration::from_secs(10);

pub(super) struct Request {
    pub(super) path: String,
    pub(super) head: String,
    pub(super) body: Vec<u8>,
}

#[derive(Default)]
pub(super) struct State {
    pub(super) requests: Vec<Request>,
    /// Statuses for the next requests, in order; then `status`.
    pub(super) next: VecDeque<u16>,
    /// 0: 200.
    pub(super) status: u16,
    /// Answers wait while this is set.
    pub(super) hold: bool,
    /// Header lines added to every answer (each ending in `\r\n`).
    pub(super) extra: String,
}

pub(super) struct Stub {
    pub(super) port: u16,
    state: Arc<(Mutex<State>, Condvar)>,
}

impl Stub {
    pub(super) fn start() -> Stub {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let state: Arc<(Mutex<State>, Condvar)> = Arc::default();
        let s = state.clone();
        // Lives as long as the test process: each test has its own port.
        std::thread::spawn(move || {
            for c in listener.incoming().flatten() {
                let s = s.clone();
                std::thread::spawn(move || serve(c, &s));
            }
        });
        Stub { port, state }
    }

    pub(super) fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub(super) fn endpoint(&self) -> Endpoint {
        super::config::parse_endpoint(&self.url()).unwrap()
    }

    pub(super) fn state(&self) -> MutexGuard<'_, State> {
        self.state.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Changes the state and wakes held answers.
    pub(super) fn set(&self, f: impl FnOnce(&mut State)) {
        f(&mut self.state());
        self.state.1.notify_all();
    }

    /// Requests to `path` so far.
    pub(super) fn count(&self, path: &str) -> usize {
        self.state()
            .requests
            .iter()
            .filter(|r| r.path == path)
            .count()
    }

    /// Each `/v1/logs` request's records, with their scope's name.
    pub(super) fn log_batches(&self) -> Vec<Vec<(String, LogRecord)>> {
        self.bodies("/v1/logs")
            .iter()
            .map(|b| {
                let req = ExportLogsServiceRequest::decode(&b[..]).unwrap();
                let mut out = Vec::new();
                for rl in req.resource_logs {
                    for sl in rl.scope_logs {
                        let scope = sl.scope.unwrap_or_default().name;
                        out.extend(sl.log_records.into_iter().map(|l| (scope.clone(), l)));
                    }
                }
                out
            })
            .collect()
    }

    /// Each `/v1/traces` request's spans, with their scope's name.
    pub(super) fn span_batches(&self) -> Vec<Vec<(String, Span)>> {
        self.bodies("/v1/traces")
            .iter()
            .map(|b| {
                let req = ExportTraceServiceRequest::decode(&b[..]).unwrap();
                let mut out = Vec::new();
                for rs in req.resource_spans {
                    for ss in rs.scope_spans {
                        let scope = ss.scope.unwrap_or_default().name;
                        out.extend(ss.spans.into_iter().map(|s| (scope.clone(), s)));
                    }
                }
                out
            })
            .collect()
    }

    /// Each `/v1/metrics` request: counter name to value, as a
    /// cumulative monotonic integer `Sum` under scope `elide::counters`.
    pub(super) fn metric_exports(&self) -> Vec<BTreeMap<String, i64>> {
        self.bodies("/v1/metrics")
            .iter()
            .map(|b| {
                let req = ExportMetricsServiceRequest::decode(&b[..]).unwrap();
                let mut out = BTreeMap::new();
                for rm in req.resource_metrics {
                    for sm in rm.scope_metrics {
                        assert_eq!(sm.scope.unwrap_or_default().name, "elide::counters");
                        for m in sm.metrics {
                            let Some(metric::Data::Sum(sum)) = m.data else {
                                panic!("{} is not a Sum", m.name)
                            };
                            assert!(sum.is_monotonic);
                            assert_eq!(sum.aggregation_temporality, 2, "cumulative");
                            let p = &sum.data_points[0];
                            assert!(p.start_time_unix_nano <= p.time_unix_nano);
                            let Some(number_data_point::Value::AsInt(v)) = p.value else {
                                panic!("{} is not an integer", m.name)
                            };
                            out.insert(m.name, v);
                        }
                    }
                }
                out
            })
            .collect()
    }

    fn bodies(&self, path: &str) -> Vec<Vec<u8>> {
        let s = self.state();
        s.requests
            .iter()
            .filter(|r| r.path == path)
            .map(|r| r.body.clone())
            .collect()
    }
}

/// Waits until `cond` holds; fails the test after ten seconds (the
/// asynchronous sinks' bounded wait).
pub(super) use crate::sink::until as wait_for;

/// Runs `f` on a thread of its own; fails the test if it has not
/// returned after [`PATIENCE`] (it may be stuck: the test must not be).
pub(super) fn within<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(PATIENCE)
        .unwrap_or_else(|e| panic!("{what}: did not return within {PATIENCE:?} ({e})"))
}

fn serve(c: std::net::TcpStream, state: &(Mutex<State>, Condvar)) {
    let _ = c.set_read_timeout(Some(PATIENCE));
    let mut r = BufReader::new(c);
    let mut head = String::new();
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        head.push_str(&line);
        if line == "\r\n" {
            break;
        }
    }
    let len = head
        .lines()
        .find_map(|l| l.strip_prefix("Content-Length: "))
        .map_or(0, |n| n.trim().parse().unwrap());
    let mut body = vec![0; len];
    if r.read_exact(&mut body).is_err() {
        return;
    }
    let path = head.split_whitespace().nth(1).unwrap_or("").to_owned();
    let (status, extra) = {
        let mut s = state.0.lock().unwrap_or_else(|e| e.into_inner());
        s.requests.push(Request { path, head, body });
        let status = s.next.pop_front().unwrap_or(s.status);
        let deadline = Instant::now() + PATIENCE;
        while s.hold && Instant::now() < deadline {
            s = state
                .1
                .wait_timeout(s, PATIENCE)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        let status = if status == 0 { 200 } else { status };
        (status, s.extra.clone())
    };
    let _ = r.get_mut().write_all(
        format!("HTTP/1.1 {status} X\r\n{extra}Content-Length: 0\r\nConnection: close\r\n\r\n")
            .as_bytes(),
    );
}
