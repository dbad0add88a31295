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
    /// Flushes asked for so far; each flush's ticket.
    asked: u64,
    /// The latest ticket whose round has ended, counters included: a
    /// flush with no records waits for this, not for an empty buffer.
    served: u64,
    stop: bool,
    /// The thread has ended: no round will serve a flush any more.
    ended: bool,
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
        p.asked += 1;
        let ticket = p.asked;
        p.urgent = true;
        self.work.notify_one();
        while !p.ended && (p.served < ticket || p.len() + p.in_flight > 0) {
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            p = self
                .room
                .wait_timeout(p, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        p.len() + p.in_flight
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
            let (stop, urgent, serving) = (p.stop, p.urgent, p.asked);
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
            if urgent {
                p.served = serving;
            }
            let end = stop && !more;
            p.ended = end;
            drop(p);
            self.room.notify_all();
            if end {
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

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::ptr;
    use std::sync::atomic::Ordering::Relaxed;
    use std::sync::{mpsc, Arc};
    use std::time::Duration;

    use opentelemetry_proto::tonic::logs::v1::LogRecord;
    use opentelemetry_proto::tonic::trace::v1::Span;

    use super::super::convert::Item;
    use super::super::stub::{wait_for, within, Stub, PATIENCE};
    use super::{Exporter, Settings};
    use crate::counter::{Counter, ShardCell};

    const HOUR: Duration = Duration::from_secs(3600);

    fn settings(batch: usize, interval: Duration) -> Settings {
        Settings {
            batch,
            buffer: 1000,
            interval,
            retry_for: HOUR,
            request_timeout: Duration::from_secs(60),
        }
    }

    fn exporter(stub: &Stub, settings: Settings) -> Arc<Exporter> {
        Arc::new(Exporter::new(stub.endpoint(), Vec::new(), settings))
    }

    fn log(n: u64) -> Item {
        Item::Log(
            "app",
            LogRecord {
                severity_text: format!("r{n}"),
                ..Default::default()
            },
        )
    }

    fn span(target: &'static str, n: u64) -> Item {
        Item::Span(
            target,
            Span {
                name: format!("s{n}"),
                ..Default::default()
            },
        )
    }

    /// The exporter's thread; the receiver hears when it has ended.
    fn start(ex: &Arc<Exporter>) -> mpsc::Receiver<()> {
        let (tx, rx) = mpsc::channel();
        let ex = ex.clone();
        std::thread::spawn(move || {
            ex.run();
            let _ = tx.send(());
        });
        rx
    }

    fn stop(ex: &Arc<Exporter>, thread: mpsc::Receiver<()>) {
        ex.stop();
        thread
            .recv_timeout(PATIENCE)
            .expect("the exporter's thread ends once stopped");
    }

    /// `flush` with all the time it wants, on a thread, bounded.
    fn flush(ex: &Arc<Exporter>) -> usize {
        let ex = ex.clone();
        within("flush", move || ex.flush(HOUR))
    }

    /// What each `/v1/logs` request carried, by record name.
    fn log_names(stub: &Stub) -> Vec<Vec<String>> {
        stub.log_batches()
            .into_iter()
            .map(|b| {
                b.into_iter()
                    .map(|(scope, l)| {
                        assert_eq!(scope, "app", "the target is the scope");
                        l.severity_text
                    })
                    .collect()
            })
            .collect()
    }

    fn names(n: std::ops::Range<u64>) -> Vec<String> {
        n.map(|i| format!("r{i}")).collect()
    }

    /// A full batch goes out without waiting for the interval; the rest
    /// at a flush, which returns once everything is sent and counted.
    #[test]
    fn full_batches_go_out_on_their_own_and_the_rest_at_a_flush() {
        let stub = Stub::start();
        let ex = exporter(&stub, settings(2, HOUR));
        for i in 0..5 {
            ex.push(log(i));
        }
        let thread = start(&ex);
        wait_for("two full batches", || stub.count("/v1/logs") == 2);
        assert_eq!(flush(&ex), 0, "nothing left unsent");
        assert_eq!(
            log_names(&stub),
            [names(0..2), names(2..4), names(4..5)],
            "batches of 2, in order"
        );
        assert_eq!(ex.counts.logs.load(Relaxed), 5);
        assert_eq!(ex.unsent(), 0);
        stop(&ex, thread);
    }

    /// A flush asked before the thread starts is served by its first
    /// round, which sends one batch of many: the flush still waits for the
    /// rest, not only for its round.
    #[test]
    fn a_flush_waits_for_every_batch_not_only_its_round() {
        let stub = Stub::start();
        let ex = exporter(&stub, settings(1, HOUR));
        for i in 0..8 {
            ex.push(log(i));
        }
        let flushing = {
            let ex = ex.clone();
            std::thread::spawn(move || ex.flush(HOUR))
        };
        wait_for("the flush asked", || ex.lock().asked == 1);
        let thread = start(&ex);
        let left = within("flush", move || flushing.join().unwrap());
        assert_eq!(left, 0, "nothing left unsent");
        let each: Vec<_> = (0..8).map(|i| names(i..i + 1)).collect();
        assert_eq!(log_names(&stub), each, "one record a batch, in order");
        stop(&ex, thread);
    }

    /// Spans are batched and counted like logs, each under its target.
    #[test]
    fn spans_are_batched_like_logs_under_their_targets() {
        let stub = Stub::start();
        let ex = exporter(&stub, settings(2, HOUR));
        for (i, t) in ["a", "b", "a"].into_iter().enumerate() {
            ex.push(span(t, i as u64));
        }
        let thread = start(&ex);
        wait_for("a full batch of spans", || stub.count("/v1/traces") == 1);
        assert_eq!(flush(&ex), 0);
        let got: Vec<Vec<(String, String)>> = stub
            .span_batches()
            .into_iter()
            .map(|b| b.into_iter().map(|(t, s)| (t, s.name)).collect())
            .collect();
        let pair = |t: &str, n: &str| (t.to_owned(), n.to_owned());
        assert_eq!(
            got,
            [
                vec![pair("a", "s0"), pair("b", "s1")],
                vec![pair("a", "s2")]
            ]
        );
        assert_eq!(ex.counts.spans.load(Relaxed), 3);
        stop(&ex, thread);
    }

    /// Until a batch is full (or the interval passes, or a flush asks),
    /// records wait: two records pushed apart go out in one request.
    #[test]
    fn a_partial_batch_waits_for_the_batch_to_fill() {
        let stub = Stub::start();
        let ex = exporter(&stub, settings(2, HOUR));
        ex.push(log(0));
        let thread = start(&ex);
        for pair in [0, 2] {
            if pair > 0 {
                ex.push(log(pair));
            }
            // Time for an exporter that sends too early to do so.
            std::thread::sleep(Duration::from_millis(100));
            ex.push(log(pair + 1));
            wait_for("a full batch", || ex.counts.logs.load(Relaxed) == pair + 2);
        }
        assert_eq!(log_names(&stub), [names(0..2), names(2..4)]);
        stop(&ex, thread);
    }

    /// A batch whose request is still unanswered counts as unsent: a
    /// flush that runs out of time reports it, and `unsent` too.
    #[test]
    fn a_batch_being_sent_is_unsent_until_answered() {
        let stub = Stub::start();
        stub.set(|s| s.hold = true);
        let ex = exporter(&stub, settings(512, HOUR));
        ex.push(log(0));
        ex.push(span("app", 0));
        let thread = start(&ex);
        let e = ex.clone();
        assert_eq!(
            within("flush", move || e.flush(Duration::from_millis(300))),
            2
        );
        assert_eq!(ex.unsent(), 2);
        stub.set(|s| s.hold = false);
        assert_eq!(flush(&ex), 0);
        assert_eq!(
            (ex.counts.logs.load(Relaxed), ex.counts.spans.load(Relaxed)),
            (1, 1)
        );
        stop(&ex, thread);
    }

    /// Stopping sends everything left, batch after batch, then the
    /// thread ends.
    #[test]
    fn stopping_sends_everything_left_then_the_thread_ends() {
        let stub = Stub::start();
        let ex = exporter(&stub, settings(2, HOUR));
        for i in 0..5 {
            ex.push(log(i));
        }
        ex.push(span("app", 0));
        ex.stop();
        let thread = start(&ex);
        thread
            .recv_timeout(PATIENCE)
            .expect("the exporter's thread ends once stopped");
        assert_eq!(log_names(&stub).concat(), names(0..5));
        assert_eq!(stub.span_batches().concat().len(), 1);
        assert_eq!(
            (ex.counts.logs.load(Relaxed), ex.counts.spans.load(Relaxed)),
            (5, 1)
        );
    }

    /// The writer that feeds a full buffer waits (the async queue behind
    /// it then applies its overflow policy); stopping lets it through.
    #[test]
    fn a_writer_waits_while_the_buffer_is_full() {
        let stub = Stub::start();
        let ex = exporter(
            &stub,
            Settings {
                buffer: 2,
                ..settings(512, HOUR)
            },
        );
        let e = ex.clone();
        within("two pushes into room", move || {
            e.push(log(0));
            e.push(log(1));
        });
        let e = ex.clone();
        let writer = std::thread::spawn(move || e.push(log(2)));
        // Time for a writer that does not wait to finish.
        std::thread::sleep(Duration::from_millis(200));
        assert!(!writer.is_finished(), "the third record waits for room");
        assert_eq!(ex.unsent(), 2);
        ex.stop();
        within("the waiting writer", move || writer.join().unwrap());
        let thread = start(&ex);
        thread
            .recv_timeout(PATIENCE)
            .expect("the exporter's thread ends once stopped");
        assert_eq!(log_names(&stub).concat(), names(0..3));
    }

    /// 5xx answers are retried (with backoff) until one succeeds.
    #[test]
    fn a_failing_batch_is_retried_until_it_is_taken() {
        let stub = Stub::start();
        stub.set(|s| s.next = [503, 500].into());
        let ex = exporter(&stub, settings(512, HOUR));
        ex.push(log(0));
        let thread = start(&ex);
        assert_eq!(flush(&ex), 0);
        assert_eq!(stub.count("/v1/logs"), 3);
        assert_eq!(
            (ex.counts.logs.load(Relaxed), ex.counts.failed.load(Relaxed)),
            (1, 0)
        );
        stop(&ex, thread);
    }

    /// A 4xx answer is final: the batch counts as failed at once.
    #[test]
    fn a_refused_batch_fails_without_a_retry() {
        let stub = Stub::start();
        stub.set(|s| s.next = [400].into());
        let ex = exporter(&stub, settings(512, HOUR));
        ex.push(log(0));
        ex.push(log(1));
        let thread = start(&ex);
        assert_eq!(flush(&ex), 0);
        assert_eq!(stub.count("/v1/logs"), 1);
        assert_eq!(
            (ex.counts.logs.load(Relaxed), ex.counts.failed.load(Relaxed)),
            (0, 2)
        );
        stop(&ex, thread);
    }

    /// Retries stop after `retry_for`: then the batch counts as failed.
    /// The backoff doubles, so a collector in trouble gets a handful of
    /// requests in that time, not a stream.
    #[test]
    fn a_batch_failing_for_retry_for_counts_as_failed() {
        let stub = Stub::start();
        stub.set(|s| s.status = 503);
        let ex = exporter(
            &stub,
            Settings {
                retry_for: Duration::from_secs(1),
                ..settings(512, HOUR)
            },
        );
        ex.push(log(0));
        let thread = start(&ex);
        assert_eq!(flush(&ex), 0);
        assert_eq!(
            (ex.counts.logs.load(Relaxed), ex.counts.failed.load(Relaxed)),
            (0, 1)
        );
        let tries = stub.count("/v1/logs");
        assert!((2..=8).contains(&tries), "{tries} requests in 1 s");
        stop(&ex, thread);
    }

    /// `retry_for` zero: one attempt, no retry.
    #[test]
    fn no_retry_time_means_one_attempt() {
        let stub = Stub::start();
        stub.set(|s| s.status = 503);
        let ex = exporter(
            &stub,
            Settings {
                retry_for: Duration::ZERO,
                ..settings(512, HOUR)
            },
        );
        ex.push(log(0));
        let thread = start(&ex);
        assert_eq!(flush(&ex), 0);
        assert_eq!(stub.count("/v1/logs"), 1);
        assert_eq!(ex.counts.failed.load(Relaxed), 1);
        stop(&ex, thread);
    }

    /// While stopping, a failing batch is still retried (within one
    /// request timeout of the stop).
    #[test]
    fn while_stopping_a_failing_batch_is_still_retried() {
        let stub = Stub::start();
        stub.set(|s| s.next = [503, 503].into());
        let ex = exporter(&stub, settings(512, HOUR));
        ex.push(log(0));
        ex.stop();
        let thread = start(&ex);
        thread
            .recv_timeout(PATIENCE)
            .expect("the exporter's thread ends once stopped");
        assert_eq!(stub.count("/v1/logs"), 3);
        assert_eq!(ex.counts.logs.load(Relaxed), 1);
    }

    /// After `hurry` (the sink is being dropped), a failing batch gets one
    /// attempt.
    #[test]
    fn in_a_hurry_a_failing_batch_gets_one_attempt() {
        let stub = Stub::start();
        stub.set(|s| s.status = 503);
        let ex = exporter(&stub, settings(512, HOUR));
        ex.hurry();
        ex.push(log(0));
        ex.stop();
        let thread = start(&ex);
        thread
            .recv_timeout(PATIENCE)
            .expect("the exporter's thread ends once stopped");
        assert_eq!(stub.count("/v1/logs"), 1);
        assert_eq!(ex.counts.failed.load(Relaxed), 1);
    }

    /// A counter of these tests' own, as `counter!` declares one: its
    /// `static` and its per-thread shard cell.
    macro_rules! unit_counter {
        ($counter:ident, $cell:ident, $name:literal) => {
            static $counter: Counter = Counter::new($name, module_path!(), file!(), line!());
            thread_local! {
                static $cell: ShardCell = const { Cell::new(ptr::null()) };
            }
        };
    }

    unit_counter!(HITS, HITS_CELL, "otlp.unit.hits");
    unit_counter!(TICKS, TICKS_CELL, "otlp.unit.ticks");
    unit_counter!(BUMPS, BUMPS_CELL, "otlp.unit.bumps");

    /// Counter totals go out at a flush (and on the interval, below), as
    /// cumulative sums, only when they changed; never just because a
    /// batch of records went.
    #[test]
    fn counters_go_out_at_a_flush_when_they_changed() {
        let stub = Stub::start();
        let ex = exporter(&stub, settings(2, HOUR));
        let hits = |stub: &Stub| -> Vec<i64> {
            stub.metric_exports()
                .iter()
                .map(|m| m["otlp.unit.hits"])
                .collect()
        };
        let round_done = |n| ex.counts.logs.load(Relaxed) == n && ex.unsent() == 0;
        HITS.add(&HITS_CELL, 3);
        let before = HITS.value() as i64;
        ex.push(log(0));
        ex.push(log(1));
        let thread = start(&ex);
        wait_for("a batch sent", || round_done(2));
        assert_eq!(stub.count("/v1/metrics"), 0, "not with a batch");
        // A record with each flush: the flush then waits for the whole
        // round, counters included.
        ex.push(log(2));
        assert_eq!(flush(&ex), 0);
        assert_eq!(hits(&stub), [before]);
        HITS.add(&HITS_CELL, 2);
        ex.push(log(3));
        ex.push(log(4));
        wait_for("a batch sent", || round_done(5));
        assert_eq!(stub.count("/v1/metrics"), 1, "not with a batch");
        ex.push(log(5));
        assert_eq!(flush(&ex), 0);
        assert_eq!(hits(&stub), [before, before + 2]);
        assert_eq!(ex.counts.metric_exports.load(Relaxed), 2);
        // Nothing changed (unless another test counted meanwhile): no export.
        let totals = crate::counter::counters();
        ex.push(log(6));
        assert_eq!(flush(&ex), 0);
        if crate::counter::counters() == totals {
            assert_eq!(stub.count("/v1/metrics"), 2, "unchanged counters");
        }
        stop(&ex, thread);
    }

    /// A flush with changed counters and no records waits for the
    /// counters' export; a flush after the thread has ended returns.
    #[test]
    fn a_flush_with_only_counters_returns_once_they_are_sent() {
        let stub = Stub::start();
        let ex = exporter(&stub, settings(2, HOUR));
        let thread = start(&ex);
        let bumps = |stub: &Stub| -> Vec<i64> {
            stub.metric_exports()
                .iter()
                .filter_map(|m| m.get("otlp.unit.bumps").copied())
                .collect()
        };
        for round in 1..=3 {
            BUMPS.add(&BUMPS_CELL, 1);
            assert_eq!(flush(&ex), 0);
            assert_eq!(
                bumps(&stub).last(),
                Some(&round),
                "sent before the flush returned"
            );
        }
        stop(&ex, thread);
        assert_eq!(flush(&ex), 0, "a flush after the end returns at once");
    }

    /// Without any flush, counters go out every export interval.
    #[test]
    fn counters_go_out_every_interval() {
        let stub = Stub::start();
        let ex = exporter(&stub, settings(512, Duration::from_millis(20)));
        TICKS.add(&TICKS_CELL, 1);
        let thread = start(&ex);
        wait_for("a counter export", || {
            stub.metric_exports()
                .iter()
                .any(|m| m.get("otlp.unit.ticks").is_some_and(|v| *v >= 1))
        });
        stop(&ex, thread);
    }
}
