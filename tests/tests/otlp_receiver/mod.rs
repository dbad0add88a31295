//! An OTLP/HTTP receiver on loopback, for the `otlp` tests and the OTLP
//! benchmark (`benches/otlp` includes this file): a std `TcpListener`, a
//! thread per connection (keep-alive connections are served until the
//! client closes them), each request decoded with the official protocol's
//! prost types (`opentelemetry-proto`) and kept in [`Received`].

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime};

use opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceRequest;
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::KeyValue;
use opentelemetry_proto::tonic::logs::v1::LogRecord;
use opentelemetry_proto::tonic::metrics::v1::{metric, number_data_point};
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;

/// What the receiver got: log records with their scope (target), spans,
/// each counter's last exported value, the last resource, and when the
/// last log request was decoded (wall clock: the benchmark compares it
/// with a start time taken in another process).
#[derive(Default)]
pub(crate) struct Received {
    pub(crate) logs: Vec<(String, LogRecord)>,
    pub(crate) spans: Vec<Span>,
    pub(crate) counters: HashMap<String, i64>,
    pub(crate) resource: Vec<KeyValue>,
    pub(crate) last_logs: Option<SystemTime>,
}

/// A listening receiver; [`stop`](Self::stop) closes the port.
pub(crate) struct Receiver {
    pub(crate) port: u16,
    pub(crate) got: Arc<Mutex<Received>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Receiver {
    /// Listens on `127.0.0.1:port` (0: any free port), adding to `got`.
    pub(crate) fn start(port: u16, got: Arc<Mutex<Received>>) -> Receiver {
        let listener = TcpListener::bind(("127.0.0.1", port)).unwrap();
        let port = listener.local_addr().unwrap().port();
        let stop = Arc::new(AtomicBool::new(false));
        let (s, g) = (stop.clone(), got.clone());
        let thread = std::thread::spawn(move || {
            for conn in listener.incoming() {
                if s.load(Ordering::Relaxed) {
                    break;
                }
                if let Ok(c) = conn {
                    let (s, g) = (s.clone(), g.clone());
                    std::thread::spawn(move || serve(c, &g, &s));
                }
            }
        });
        Receiver {
            port,
            got,
            stop,
            thread: Some(thread),
        }
    }

    /// `http://127.0.0.1:<port>`.
    pub(crate) fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Stops listening (the port refuses connections until a restart; open
    /// keep-alive connections are closed after their current request).
    pub(crate) fn stop(mut self) -> (u16, Arc<Mutex<Received>>) {
        self.stop.store(true, Ordering::Relaxed);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(t) = self.thread.take() {
            t.join().unwrap();
        }
        (self.port, self.got.clone())
    }
}

/// Serves the requests of one connection until the client closes it, asks
/// to (`Connection: close`), or the receiver stops.
fn serve(c: TcpStream, got: &Mutex<Received>, stop: &AtomicBool) {
    c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut r = BufReader::new(c);
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).is_err() || line.is_empty() {
            return;
        }
        let path = line.split_whitespace().nth(1).unwrap_or("").to_owned();
        let (mut len, mut close, mut gzip) = (0usize, false, false);
        loop {
            let mut h = String::new();
            r.read_line(&mut h).unwrap();
            let h = h.trim_end();
            if h.is_empty() {
                break;
            }
            if let Some((k, v)) = h.split_once(':') {
                if k.eq_ignore_ascii_case("content-length") {
                    len = v.trim().parse().unwrap();
                } else if k.eq_ignore_ascii_case("connection") {
                    close = v.trim().eq_ignore_ascii_case("close");
                } else if k.eq_ignore_ascii_case("content-encoding") {
                    gzip = v.trim().eq_ignore_ascii_case("gzip");
                }
            }
        }
        let mut body = vec![0; len];
        r.read_exact(&mut body).unwrap();
        if gzip {
            // A collector forwards gzip-compressed (rotel always does).
            let mut plain = Vec::new();
            flate2::read::GzDecoder::new(&body[..])
                .read_to_end(&mut plain)
                .unwrap();
            body = plain;
        }
        decode(&path, &body, &mut got.lock().unwrap());
        close |= stop.load(Ordering::Relaxed);
        let reply: &[u8] = if close {
            b"HTTP/1.1 200 OK\r\nContent-Type: application/x-protobuf\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        } else {
            b"HTTP/1.1 200 OK\r\nContent-Type: application/x-protobuf\r\nContent-Length: 0\r\n\r\n"
        };
        if r.get_mut().write_all(reply).is_err() || close {
            return;
        }
    }
}

fn decode(path: &str, body: &[u8], g: &mut Received) {
    match path {
        "/v1/logs" => {
            let req = ExportLogsServiceRequest::decode(body).unwrap();
            for rl in req.resource_logs {
                g.resource = rl.resource.unwrap_or_default().attributes;
                for sl in rl.scope_logs {
                    let scope = sl.scope.unwrap_or_default().name;
                    g.logs
                        .extend(sl.log_records.into_iter().map(|l| (scope.clone(), l)));
                }
            }
            g.last_logs = Some(SystemTime::now());
        }
        "/v1/traces" => {
            let req = ExportTraceServiceRequest::decode(body).unwrap();
            for rs in req.resource_spans {
                for ss in rs.scope_spans {
                    g.spans.extend(ss.spans);
                }
            }
        }
        "/v1/metrics" => {
            let req = ExportMetricsServiceRequest::decode(body).unwrap();
            for rm in req.resource_metrics {
                for sm in rm.scope_metrics {
                    for m in sm.metrics {
                        let Some(metric::Data::Sum(sum)) = m.data else {
                            panic!("{} is not a Sum", m.name)
                        };
                        assert!(sum.is_monotonic);
                        assert_eq!(sum.aggregation_temporality, 2, "cumulative");
                        let p = &sum.data_points[0];
                        let Some(number_data_point::Value::AsInt(v)) = p.value else {
                            panic!("not an int")
                        };
                        g.counters.insert(m.name, v);
                    }
                }
            }
        }
        other => panic!("unexpected path {other}"),
    }
}
