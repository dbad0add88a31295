//! The exporter: converted records wait here in a bounded buffer; a thread
//! of its own batches, encodes and posts them, retries failures with
//! backoff for a bounded time, and exports counter totals on an interval.
//!
//! The exporter is fed by an `AsyncSink` writer thread (so callers only
//! ever enqueue). When the buffer is full, the writer waits for room, the
//! async queue fills, and callers follow their overflow policy: `Block`
//! waits (at most as long as the retries of the batches ahead), `Drop`
//! drops and counts.

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime};

use opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceRequest;
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{InstrumentationScope, KeyValue};
use opentelemetry_proto::tonic::logs::v1::{LogRecord, ResourceLogs, ScopeLogs};
use opentelemetry_proto::tonic::metrics::v1::{
    metric, number_data_point, AggregationTemporality, Metric, NumberDataPoint, ResourceMetrics,
    ScopeMetrics, Sum,
};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span};
use prost::Message;

use super::convert::{nanos, Item};
use super::http::{Endpoint, Sent};

/// Tunables, from the builder.
#[derive(Clone, Debug)]
pub(crate) struct Settings {
    pub(crate) batch: usize,
    pub(crate) buffer: usize,
    pub(crate) interval: Duration,
    pub(crate) retry_for: Duration,
    pub(crate) request_timeout: Duration,
}

/// Counters shared with [`OtlpSink::stats`](super::OtlpSink::stats).
#[derive(Debug, Default)]
pub(crate) struct Counts {
    pub(crate) logs: AtomicU64,
    pub(crate) spans: AtomicU64,
    pub(crate) metric_exports: AtomicU64,
    pub(crate) failed: AtomicU64,
    reported: AtomicBool,
}

#[derive(Default)]
struct Pending {
    // Deques: a batch taken from the front does not move the rest (a
    // `Vec::drain(..k)` did, under the lock, for every batch).
    logs: VecDeque<(&'static str, LogRecord)>,
    spans: VecDeque<(&'static str, Span)>,
    /// Items taken by the thread and not yet sent or failed.
    in_flight: usize,
    /// A flush asked for everything now.
    urgent: bool,
    stop: bool,
}

impl Pending {
    fn len(&self) -> usize {
        self.logs.len() + self.spans.len()
    }
}

pub(crate) struct Exporter {
    pending: Mutex<Pending>,
    /// Wakes the exporter thread.
    work: Condvar,
    /// Wakes a writer waiting for room, or a flush waiting for the drain.
    room: Condvar,
    endpoint: Endpoint,
    resource: Resource,
    settings: Settings,
    pub(crate) counts: Counts,
    started: SystemTime,
    /// Shutting down: each batch gets one attempt, no retries.
    hurry: AtomicBool,
}

impl std::fmt::Debug for Exporter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Exporter")
            .field("endpoint", &self.endpoint.url(""))
            .finish()
    }
}

impl Exporter {
    pub(crate) fn new(endpoint: Endpoint, resource: Vec<KeyValue>, settings: Settings) -> Exporter {
        Exporter {
            pending: Mutex::new(Pending::default()),
            work: Condvar::new(),
            room: Condvar::new(),
            endpoint,
            resource: Resource {
                attributes: resource,
                ..Default::default()
            },
            settings,
            counts: Counts::default(),
            started: SystemTime::now(),
            hurry: AtomicBool::new(false),
        }
    }

    /// The endpoint's URL for a signal path.
    pub(crate) fn url(&self, path: &str) -> String {
        self.endpoint.url(path)
    }

    /// Items buffered or being sent.
    pub(crate) fn unsent(&self) -> usize {
        let p = self.lock();
        p.len() + p.in_flight
    }

    fn lock(&self) -> MutexGuard<'_, Pending> {
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Takes a converted record (on the async writer thread); waits while
    /// the buffer is full.
    pub(crate) fn push(&self, item: Item) {
        let mut p = self.lock();
        while p.len() >= self.settings.buffer && !p.stop {
            p = self.room.wait(p).unwrap_or_else(|e| e.into_inner());
        }
        match item {
            Item::Log(t, l) => p.logs.push_back((t, l)),
            Item::Span(t, s) => p.spans.push_back((t, s)),
            Item::Skip => return,
        }
        if p.len() >= self.settings.batch {
            self.work.notify_one();
        }
    }

    /// Sends everything buffered and waits for it, at most `timeout`.
    /// Returns the number of items still unsent.
    pub(crate) fn flush(&self, timeout: Duration) -> usize {
        let deadline = Instant::now() + timeout;
        let mut p = self.lock();
        p.urgent = true;
        self.work.notify_one();
        while p.len() + p.in_flight > 0 {
            let now = Instant::now();
            if now >= deadline {
                return p.len() + p.in_flight;
            }
            p = self
                .room
                .wait_timeout(p, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        0
    }

    /// From now on a batch that fails is not retried (shutdown).
    pub(crate) fn hurry(&self) {
        self.hurry.store(true, Ordering::Relaxed);
    }

    /// Asks the thread to export what is left and stop.
    pub(crate) fn stop(&self) {
        self.lock().stop = true;
        self.work.notify_one();
        self.room.notify_all();
    }

    /// The exporter thread.
    pub(crate) fn run(self: Arc<Self>) {
        let mut next_metrics = Instant::now() + self.settings.interval;
        let mut last_counters: Option<BTreeMap<&'static str, u64>> = None;
        loop {
            let mut p = self.lock();
            loop {
                if p.stop || p.urgent || p.len() >= self.settings.batch {
                    break;
                }
                let now = Instant::now();
                if now >= next_metrics {
                    break;
                }
                p = self
                    .work
                    .wait_timeout(p, next_metrics - now)
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
            }
            let (stop, urgent) = (p.stop, p.urgent);
            p.urgent = false;
            let n = self.settings.batch;
            let logs: Vec<_> = {
                let k = p.logs.len().min(n);
                p.logs.drain(..k).collect()
            };
            let spans: Vec<_> = {
                let k = p.spans.len().min(n);
                p.spans.drain(..k).collect()
            };
            p.in_flight = logs.len() + spans.len();
            let more = !p.logs.is_empty() || !p.spans.is_empty();
            if more {
                // Still work: come straight back (and finish a flush).
                p.urgent = urgent;
            }
            drop(p);
            self.room.notify_all();
            let give_up = stop.then(Instant::now);
            if !logs.is_empty() {
                let k = logs.len() as u64;
                if self.send_logs(logs, give_up) {
                    self.counts.logs.fetch_add(k, Ordering::Relaxed);
                }
            }
            if !spans.is_empty() {
                let k = spans.len() as u64;
                if self.send_spans(spans, give_up) {
                    self.counts.spans.fetch_add(k, Ordering::Relaxed);
                }
            }
            let now = Instant::now();
            if now >= next_metrics || urgent || stop {
                next_metrics = now + self.settings.interval;
                let totals = crate::counter::counters();
                if last_counters.as_ref() != Some(&totals) && !totals.is_empty() {
                    if self.send_metrics(&totals, give_up) {
                        self.counts.metric_exports.fetch_add(1, Ordering::Relaxed);
                    }
                    last_counters = Some(totals);
                }
            }
            let mut p = self.lock();
            p.in_flight = 0;
            drop(p);
            self.room.notify_all();
            if stop && !more {
                break;
            }
        }
    }

    fn scope(target: &str) -> Option<InstrumentationScope> {
        Some(InstrumentationScope {
            name: target.to_owned(),
            ..Default::default()
        })
    }

    fn send_logs(&self, logs: Vec<(&'static str, LogRecord)>, give_up: Option<Instant>) -> bool {
        let n = logs.len();
        let mut by: BTreeMap<&str, Vec<LogRecord>> = BTreeMap::new();
        for (t, l) in logs {
            by.entry(t).or_default().push(l);
        }
        let req = ExportLogsServiceRequest {
            resource_logs: vec![ResourceLogs {
                resource: Some(self.resource.clone()),
                scope_logs: by
                    .into_iter()
                    .map(|(t, log_records)| ScopeLogs {
                        scope: Self::scope(t),
                        log_records,
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            }],
        };
        self.send("/v1/logs", &req.encode_to_vec(), n, give_up)
    }

    fn send_spans(&self, spans: Vec<(&'static str, Span)>, give_up: Option<Instant>) -> bool {
        let n = spans.len();
        let mut by: BTreeMap<&str, Vec<Span>> = BTreeMap::new();
        for (t, s) in spans {
            by.entry(t).or_default().push(s);
        }
        let req = ExportTraceServiceRequest {
            resource_spans: vec![ResourceSpans {
                resource: Some(self.resource.clone()),
                scope_spans: by
                    .into_iter()
                    .map(|(t, spans)| ScopeSpans {
                        scope: Self::scope(t),
                        spans,
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            }],
        };
        self.send("/v1/traces", &req.encode_to_vec(), n, give_up)
    }

    fn send_metrics(&self, totals: &BTreeMap<&'static str, u64>, give_up: Option<Instant>) -> bool {
        let (start, now) = (nanos(self.started), nanos(SystemTime::now()));
        let metrics = totals
            .iter()
            .map(|(name, v)| Metric {
                name: (*name).to_owned(),
                data: Some(metric::Data::Sum(Sum {
                    data_points: vec![NumberDataPoint {
                        start_time_unix_nano: start,
                        time_unix_nano: now,
                        value: Some(number_data_point::Value::AsInt(
                            i64::try_from(*v).unwrap_or(i64::MAX),
                        )),
                        ..Default::default()
                    }],
                    aggregation_temporality: AggregationTemporality::Cumulative as i32,
                    is_monotonic: true,
                })),
                ..Default::default()
            })
            .collect();
        let req = ExportMetricsServiceRequest {
            resource_metrics: vec![ResourceMetrics {
                resource: Some(self.resource.clone()),
                scope_metrics: vec![ScopeMetrics {
                    scope: Self::scope("elide::counters"),
                    metrics,
                    ..Default::default()
                }],
                ..Default::default()
            }],
        };
        // A failed metrics export loses nothing: the next one is cumulative.
        self.send("/v1/metrics", &req.encode_to_vec(), 0, give_up)
    }

    /// Posts with retries (backoff from 50 ms, doubling to 1 s) until
    /// `retry_for` has passed (or, while stopping, `give_up` +
    /// `request_timeout`); then counts `items` as failed and reports the
    /// first failure.
    fn send(&self, path: &str, body: &[u8], items: usize, give_up: Option<Instant>) -> bool {
        let first = Instant::now();
        let deadline = match give_up {
            _ if self.hurry.load(Ordering::Relaxed) => first,
            Some(t) => (t + self.settings.request_timeout).min(first + self.settings.retry_for),
            None => first + self.settings.retry_for,
        };
        let mut backoff = Duration::from_millis(50);
        loop {
            let why = match self
                .endpoint
                .post(path, body, self.settings.request_timeout)
            {
                Sent::Ok => return true,
                Sent::Refused(why) => {
                    self.fail(path, items, &why);
                    return false;
                }
                Sent::Retry(why) => why,
            };
            let now = Instant::now();
            if now + backoff > deadline {
                self.fail(
                    path,
                    items,
                    &format!("{why}; gave up after {:?}", now - first),
                );
                return false;
            }
            std::thread::sleep(backoff);
            backoff = (backoff * 2).min(Duration::from_secs(1));
        }
    }

    fn fail(&self, path: &str, items: usize, why: &str) {
        self.counts
            .failed
            .fetch_add(items as u64, Ordering::Relaxed);
        if !self.counts.reported.swap(true, Ordering::Relaxed) {
            let lost = match items {
                // Counters are cumulative: the next export carries them.
                0 => "counters not exported this time".to_owned(),
                n => format!("{n} records lost"),
            };
            let _ = crate::process::write_stderr(
                format!(
                    "elide: OTLP export to {} failed: {why}; {lost} (further failures are \
                     counted in OtlpSink::stats())\n",
                    self.endpoint.url(path)
                )
                .as_bytes(),
            );
        }
    }
}
