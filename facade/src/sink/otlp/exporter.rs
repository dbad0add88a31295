//! The exporter: converted records wait here in a bounded buffer; a thread
//! of its own batches, encodes and posts them, retries failures with
//! backoff for a bounded time, and exports counter totals on an interval.
//!
//! The exporter is fed by an `AsyncSink` writer thread (so callers only
//! ever enqueue). When the buffer is full, the writer waits for room only
//! while the collector keeps up (its last answer was a success and no
//! request has been running for [`STALL`]): a healthy collector gets every
//! record, the queue's overflow policy applying meanwhile. A collector in
//! trouble (down, refusing, silent, slow) gets no wait: the record is
//! dropped and counted, as the OpenTelemetry SDKs' batch processors do, so
//! an outage never stalls the queue and, behind it, the callers.
//!
//! Shutdown is bounded by one budget, the sink's shutdown timeout: the
//! first flush that runs out of time (or the exit flush) starts it, and
//! every later flush ends with it. When the process exits, what is still
//! unsent is counted as dropped (and the exporter takes nothing more).

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime};

use opentelemetry_proto::tonic::metrics::v1::{
    metric, number_data_point, AggregationTemporality, Metric, NumberDataPoint, Sum,
};
use prost::Message;

use super::convert::{nanos, Item};
use super::http::{Endpoint, Sent};

/// How long a request may run before the collector counts as in trouble
/// (then a full buffer drops instead of waiting). A healthy collector on
/// a network answers a batch well within it.
const STALL: Duration = Duration::from_millis(100);

/// Tunables, from the builder.
#[derive(Clone, Debug)]
pub(crate) struct Settings {
    pub(crate) batch: usize,
    pub(crate) buffer: usize,
    pub(crate) interval: Duration,
    pub(crate) retry_for: Duration,
    pub(crate) request_timeout: Duration,
    /// The most any flush waits, and all of them together at the end.
    pub(crate) shutdown: Duration,
    /// Per signal path: its own endpoint (its URL used as it is) and
    /// request timeout (`OTEL_EXPORTER_OTLP_<SIGNAL>_*`).
    pub(crate) signals: Vec<(&'static str, Option<Endpoint>, Option<Duration>)>,
    /// gzip the request bodies (`OTEL_EXPORTER_OTLP_COMPRESSION=gzip`).
    pub(crate) gzip: bool,
}

/// Counters shared with [`OtlpSink::stats`](super::OtlpSink::stats).
#[derive(Debug, Default)]
pub(crate) struct Counts {
    pub(crate) logs: AtomicU64,
    pub(crate) spans: AtomicU64,
    pub(crate) metric_exports: AtomicU64,
    pub(crate) failed: AtomicU64,
    /// Records dropped by the exporter: its buffer was full, or the
    /// process was exiting and their time was up.
    pub(crate) dropped: AtomicU64,
    reported: AtomicBool,
    full_reported: AtomicBool,
}

#[derive(Default)]
struct Pending {
    // Deques: a batch taken from the front does not move the rest.
    logs: VecDeque<(&'static str, Vec<u8>)>,
    spans: VecDeque<(&'static str, Vec<u8>)>,
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
    /// When every flush gives up from now on: set by the first flush
    /// that ran out of time (cleared by the next export that succeeds,
    /// unless the process is ending) or by the first flush of the end.
    end_by: Option<Instant>,
    /// The process is ending: `end_by` stays.
    ending: bool,
    /// Given up at exit: what was unsent is counted as dropped, and
    /// nothing more is taken, sent or counted otherwise.
    closed: bool,
    /// When the request now running started.
    sending_since: Option<Instant>,
    /// The last request did not succeed.
    trouble: bool,
}

impl Pending {
    /// Whether a writer may wait for room (see [`STALL`]).
    fn keeping_up(&self) -> bool {
        !self.trouble && self.sending_since.map_or(true, |t| t.elapsed() < STALL)
    }

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
    pub(crate) endpoint: Endpoint,
    /// The encoded `Resource`: every request carries it.
    resource: Vec<u8>,
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
    /// `resource`: the encoded `Resource`.
    pub(crate) fn new(endpoint: Endpoint, resource: Vec<u8>, settings: Settings) -> Exporter {
        Exporter {
            resource,
            pending: Mutex::new(Pending::default()),
            work: Condvar::new(),
            room: Condvar::new(),
            endpoint,
            settings,
            counts: Counts::default(),
            started: SystemTime::now(),
            hurry: AtomicBool::new(false),
        }
    }

    /// Items that make a batch worth sending now: a full batch, or a full
    /// buffer (a writer may be waiting for room).
    fn full_batch(&self) -> usize {
        self.settings.batch.min(self.settings.buffer)
    }

    fn lock(&self) -> MutexGuard<'_, Pending> {
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Takes a converted record (on the async writer thread); with the
    /// buffer full, waits or drops as the module says (the first drop said).
    pub(crate) fn push(&self, item: Item) {
        if matches!(item, Item::Skip) {
            return;
        }
        let mut p = self.lock();
        while p.len() >= self.settings.buffer && !p.stop && !p.closed && p.keeping_up() {
            // In slices: the collector may fall behind while we wait.
            p = self
                .room
                .wait_timeout(p, Duration::from_millis(10))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        if p.closed || p.len() >= self.settings.buffer {
            let closed = p.closed;
            drop(p);
            self.counts.dropped.fetch_add(1, Ordering::Relaxed);
            if !closed && !self.counts.full_reported.swap(true, Ordering::Relaxed) {
                super::warn(&format!(
                    "OTLP {}: the export buffer is full ({} records: the collector is slow \
                     or down); records are dropped and counted in OtlpSink::stats().dropped",
                    self.endpoint.url(""),
                    self.settings.buffer
                ));
            }
            return;
        }
        match item {
            Item::Log(t, l) => p.logs.push_back((t, l)),
            Item::Span(t, s) => p.spans.push_back((t, s)),
            Item::Skip => {}
        }
        if p.len() >= self.full_batch() {
            self.work.notify_one();
        }
    }

    /// A flush's deadline: at most the shutdown timeout from now, and no
    /// later than the end of the budget if one has started. `ending` (the
    /// process exits, or the sink is dropped) starts the budget if no
    /// flush has yet.
    pub(crate) fn deadline(&self, ending: bool) -> Instant {
        let own = Instant::now() + self.settings.shutdown;
        let mut p = self.lock();
        if ending {
            p.ending = true;
            p.end_by.get_or_insert(own);
        }
        p.end_by.map_or(own, |t| t.min(own))
    }

    /// [`flush`](Self::flush) until `deadline`; a flush that runs out of
    /// time starts the shutdown budget (it was its whole length, or the
    /// budget had started already).
    pub(crate) fn flush_until(&self, deadline: Instant) -> usize {
        let left = self.flush(deadline.saturating_duration_since(Instant::now()));
        if left > 0 {
            self.lock().end_by.get_or_insert(deadline);
        }
        left
    }

    /// The end: what is still unsent counts as dropped, and from now on
    /// records are dropped on arrival; the thread's answers for the
    /// batches it holds are no longer counted. Returns how many.
    pub(crate) fn close(&self) -> usize {
        let mut p = self.lock();
        if p.closed {
            return 0;
        }
        p.closed = true;
        let left = p.len() + p.in_flight;
        p.logs.clear();
        p.spans.clear();
        p.in_flight = 0;
        self.counts
            .dropped
            .fetch_add(left as u64, Ordering::Relaxed);
        drop(p);
        self.room.notify_all();
        self.work.notify_one();
        left
    }

    /// Sends everything buffered and waits for it, at most `timeout`.
    /// Returns the number of items still unsent.
    pub(crate) fn flush(&self, timeout: Duration) -> usize {
        let mut p = self.lock();
        p.asked += 1;
        let ticket = p.asked;
        p.urgent = true;
        self.work.notify_one();
        let p = self
            .room
            .wait_timeout_while(p, timeout, |p| {
                !p.ended && (p.served < ticket || p.len() + p.in_flight > 0)
            })
            .unwrap_or_else(|e| e.into_inner())
            .0;
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
            let idle = next_metrics.saturating_duration_since(Instant::now());
            let mut p = self
                .work
                .wait_timeout_while(self.lock(), idle, |p| {
                    !p.stop && !p.urgent && p.len() < self.full_batch()
                })
                .unwrap_or_else(|e| e.into_inner())
                .0;
            let (stop, urgent, serving) = (p.stop, p.urgent, p.asked);
            p.urgent = false;
            let n = self.settings.batch;
            let take = |q: &mut VecDeque<_>| q.drain(..q.len().min(n)).collect::<Vec<_>>();
            let (logs, spans) = (take(&mut p.logs), take(&mut p.spans));
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
                self.send_part(&logs, give_up, &self.counts.logs, "/v1/logs");
            }
            if !spans.is_empty() {
                self.send_part(&spans, give_up, &self.counts.spans, "/v1/traces");
            }
            let now = Instant::now();
            if now >= next_metrics || urgent || stop {
                next_metrics = now + self.settings.interval;
                let totals = crate::site::counter::counters();
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

    /// Counts a batch part's outcome, unless the exporter was closed
    /// meanwhile (then it was counted as dropped). Under the lock, with
    /// the part leaving `in_flight`, so a close counts it once.
    fn settle(&self, sent: bool, counter: &AtomicU64, n: usize, path: &str, why: &str) {
        let mut p = self.lock();
        if p.closed {
            return;
        }
        p.in_flight = p.in_flight.saturating_sub(n);
        if sent {
            counter.fetch_add(n as u64, Ordering::Relaxed);
            if !p.ending {
                // The collector is back: the next flush has its full time.
                p.end_by = None;
            }
        } else {
            drop(p);
            self.fail(path, n, why);
        }
    }

    /// Sends a batch part (its request: the resource, a scope per target,
    /// the records' bytes); on 413 sends its halves.
    fn send_part(
        &self,
        part: &[(&'static str, Vec<u8>)],
        give_up: Option<Instant>,
        counter: &AtomicU64,
        path: &'static str,
    ) {
        let n = part.len();
        let body = request(&self.resource, part);
        match self.send(path, &body, give_up) {
            Sent::Ok => self.settle(true, counter, n, path, ""),
            Sent::TooLarge(_) if n > 1 => {
                drop(body);
                let (first, second) = part.split_at(n / 2);
                self.send_part(first, give_up, counter, path);
                self.send_part(second, give_up, counter, path);
            }
            Sent::TooLarge(why) | Sent::Refused(why) | Sent::Retry(why, _) => {
                self.settle(false, counter, n, path, &why)
            }
        }
    }

    fn send_metrics(&self, totals: &BTreeMap<&'static str, u64>, give_up: Option<Instant>) -> bool {
        let (start, now) = (nanos(self.started), nanos(SystemTime::now()));
        // One scope, `elide::counters`, its records the `Metric`s.
        let metrics: Vec<(&'static str, Vec<u8>)> = totals
            .iter()
            .map(|(name, v)| {
                let metric = Metric {
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
                };
                ("elide::counters", metric.encode_to_vec())
            })
            .collect();
        // A failed metrics export loses nothing: the next one is cumulative.
        match self.send("/v1/metrics", &request(&self.resource, &metrics), give_up) {
            Sent::Ok => true,
            Sent::TooLarge(why) | Sent::Refused(why) | Sent::Retry(why, _) => {
                self.fail("/v1/metrics", 0, &why);
                false
            }
        }
    }

    /// Posts with retries until `retry_for` has passed (or, while
    /// stopping, `give_up` + `request_timeout`; in a hurry, one attempt),
    /// or the exporter is closed. Only what the OTLP specification calls
    /// retryable is retried (connection errors, timeouts, 429, 502, 503,
    /// 504), after the collector's `Retry-After` if it gave one, else an
    /// exponential backoff (100 ms doubling to 5 s) with jitter, so that
    /// many processes that lost one collector do not come back in step.
    /// Never `Retry`: a batch given up on is `Refused`.
    fn send(&self, path: &'static str, body: &[u8], give_up: Option<Instant>) -> Sent {
        let first = Instant::now();
        let deadline = match give_up {
            _ if self.hurry.load(Ordering::Relaxed) => first,
            Some(t) => (t + self.settings.request_timeout).min(first + self.settings.retry_for),
            None => first + self.settings.retry_for,
        };
        let mut backoff = Duration::from_millis(100);
        let (endpoint, at, timeout) = self.route(path);
        let zipped = self.settings.gzip.then(|| gzip(body));
        let body = zipped.as_deref().unwrap_or(body);
        let encoding = self.settings.gzip.then_some("gzip");
        loop {
            self.lock().sending_since = Some(Instant::now());
            let sent = endpoint.post(at, body, encoding, timeout);
            let mut p = self.lock();
            (p.sending_since, p.trouble) = (None, !matches!(sent, Sent::Ok));
            drop(p);
            let (why, after) = match sent {
                Sent::Retry(why, after) => (why, after),
                done => return done,
            };
            let wait = after.unwrap_or_else(|| jitter(backoff));
            let now = Instant::now();
            if now + wait > deadline {
                return Sent::Refused(format!("{why}; gave up after {:?}", now - first));
            }
            if !self.pause(wait) {
                return Sent::Refused(format!("{why}; closed while retrying"));
            }
            backoff = (backoff * 2).min(Duration::from_secs(5));
        }
    }

    /// Where a signal's requests go: its own endpoint if it has one (the
    /// URL as it is: no path appended), else the base endpoint and the
    /// signal's path; and the request timeout.
    fn route(&self, path: &'static str) -> (&Endpoint, &'static str, Duration) {
        let own = self.settings.signals.iter().find(|(p, ..)| *p == path);
        let timeout = own
            .and_then(|(_, _, t)| *t)
            .unwrap_or(self.settings.request_timeout);
        match own.and_then(|(_, e, _)| e.as_ref()) {
            Some(e) if e.base.is_empty() => (e, "/", timeout),
            Some(e) => (e, "", timeout),
            None => (&self.endpoint, path, timeout),
        }
    }

    /// Waits `d`; false if the exporter closed meanwhile (`close` wakes it).
    fn pause(&self, d: Duration) -> bool {
        let p = self.room.wait_timeout_while(self.lock(), d, |p| !p.closed);
        !p.unwrap_or_else(|e| e.into_inner()).0.closed
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
            super::warn(&format!(
                "OTLP export to {} failed: {why}; {lost} (further failures are \
                 counted in OtlpSink::stats())",
                self.endpoint.url(path)
            ));
        }
    }
}

/// `body` gzipped (fast level: the exporter's thread, not the caller's,
/// pays it, and a batch should not wait on it).
fn gzip(body: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut z = flate2::write::GzEncoder::new(
        Vec::with_capacity(body.len() / 4),
        flate2::Compression::fast(),
    );
    // Writing to a Vec cannot fail.
    let _ = z.write_all(body);
    z.finish().unwrap_or_default()
}

/// The body of an `Export{Logs,Trace,Metrics}ServiceRequest` (the same
/// fields): one `Resource*` with the resource (its encoded `Resource`)
/// and a `Scope*` per target, in target order, holding its records'
/// encoded messages in their order. Sizes are computed first, so the
/// body is written once.
fn request(resource: &[u8], items: &[(&'static str, Vec<u8>)]) -> Vec<u8> {
    use super::wire::{bytes, field_len, varint};
    // Field 1 of the request, of the `Resource*` (resource) and of the
    // `Scope*` (scope) and of `InstrumentationScope` (name); field 2 of
    // `Resource*` (the scopes) and of `Scope*` (the records).
    const FIRST: u8 = 1 << 3 | 2;
    const SECOND: u8 = 2 << 3 | 2;
    let one = items.first().map(|(t, _)| *t);
    let groups: Vec<(&'static str, Vec<&[u8]>)> = match one {
        // The same site's target is the same `&'static str`: its address
        // says so before its text is compared.
        Some(t) if items.iter().all(|(u, _)| std::ptr::eq(*u, t) || *u == t) => {
            vec![(t, items.iter().map(|(_, b)| &b[..]).collect())]
        }
        _ => {
            let mut by: BTreeMap<&'static str, Vec<&[u8]>> = BTreeMap::new();
            for (t, b) in items {
                by.entry(t).or_default().push(b);
            }
            by.into_iter().collect()
        }
    };
    let scope_len = |t: &str, records: &[&[u8]]| {
        field_len(field_len(t.len())) + records.iter().map(|r| field_len(r.len())).sum::<usize>()
    };
    let sizes: Vec<usize> = groups.iter().map(|(t, r)| scope_len(t, r)).collect();
    let inner = field_len(resource.len()) + sizes.iter().map(|&n| field_len(n)).sum::<usize>();
    let mut b = Vec::with_capacity(field_len(inner));
    b.push(FIRST);
    varint(&mut b, inner as u64);
    bytes(&mut b, 1, resource);
    for ((t, records), size) in groups.iter().zip(sizes) {
        b.push(SECOND);
        varint(&mut b, size as u64);
        b.push(FIRST);
        varint(&mut b, field_len(t.len()) as u64);
        bytes(&mut b, 1, t.as_bytes());
        for r in records {
            bytes(&mut b, 2, r);
        }
    }
    debug_assert_eq!(b.len(), field_len(inner));
    b
}

/// `d` less a random part of its half: retries of many exporters spread.
fn jitter(d: Duration) -> Duration {
    use std::hash::BuildHasher;
    let r = std::collections::hash_map::RandomState::new().hash_one(Instant::now());
    d / 2 + (d / 2).mul_f64((r % 1024) as f64 / 1024.0)
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
    use prost::Message;

    use super::super::convert::Item;
    use super::super::stub::{wait_for, within, Stub, PATIENCE};
    use super::{Exporter, Settings};
    use crate::site::counter::{Counter, ShardCell};

    const HOUR: Duration = Duration::from_secs(3600);

    impl Exporter {
        /// Items buffered or being sent.
        fn unsent(&self) -> usize {
            let p = self.lock();
            p.len() + p.in_flight
        }
    }

    fn settings(batch: usize, interval: Duration) -> Settings {
        Settings {
            batch,
            buffer: 1000,
            interval,
            retry_for: HOUR,
            request_timeout: Duration::from_secs(60),
            shutdown: HOUR,
            signals: Vec::new(),
            gzip: false,
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
            }
            .encode_to_vec(),
        )
    }

    fn span(target: &'static str, n: u64) -> Item {
        Item::Span(
            target,
            Span {
                name: format!("s{n}"),
                ..Default::default()
            }
            .encode_to_vec(),
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

    /// A full buffer makes its writer wait while the collector keeps up
    /// (nothing is lost to a healthy one); once its last answer failed,
    /// the record is dropped and counted at once (the collector may be
    /// down for long), and every record is in exactly one of sent,
    /// failed, dropped.
    #[test]
    fn a_full_buffer_waits_for_a_healthy_collector_and_drops_for_one_in_trouble() {
        let stub = Stub::start();
        let ex = exporter(
            &stub,
            Settings {
                buffer: 2,
                retry_for: Duration::ZERO,
                ..settings(512, HOUR)
            },
        );
        let e = ex.clone();
        let writer = std::thread::spawn(move || {
            for i in 0..3 {
                e.push(log(i));
            }
        });
        std::thread::sleep(Duration::from_millis(200));
        assert!(!writer.is_finished(), "the third record waits for room");
        let thread = start(&ex);
        within("the waiting writer", move || writer.join().unwrap());
        assert_eq!(flush(&ex), 0);
        assert_eq!(ex.counts.logs.load(Relaxed), 3);
        stub.set(|s| s.next = [503].into());
        ex.push(log(3));
        assert_eq!(flush(&ex), 0);
        assert_eq!(
            ex.counts.failed.load(Relaxed),
            1,
            "the collector in trouble"
        );
        stop(&ex, thread);
        let ex = Arc::new(Exporter::new(
            stub.endpoint(),
            Vec::new(),
            ex.settings.clone(),
        ));
        ex.lock().trouble = true;
        let e = ex.clone();
        within("five pushes into a buffer of two", move || {
            for i in 0..5 {
                e.push(log(i));
            }
        });
        assert_eq!(ex.unsent(), 2);
        assert_eq!(ex.counts.dropped.load(Relaxed), 3);
        let thread = start(&ex);
        assert_eq!(flush(&ex), 0);
        assert_eq!(log_names(&stub).concat()[4..], names(0..2));
        assert_eq!(ex.counts.logs.load(Relaxed), 2);
        stop(&ex, thread);
    }

    /// The collector's `Retry-After` is the wait before the retry (the
    /// own backoff would retry within 100 ms).
    #[test]
    fn retry_after_is_honoured() {
        let stub = Stub::start();
        stub.set(|s| {
            s.next = [429].into();
            s.extra = "Retry-After: 1\r\n".into();
        });
        let ex = exporter(&stub, settings(512, HOUR));
        ex.push(log(0));
        let thread = start(&ex);
        let t = std::time::Instant::now();
        assert_eq!(flush(&ex), 0);
        assert!(t.elapsed() >= Duration::from_secs(1), "{:?}", t.elapsed());
        assert_eq!(stub.count("/v1/logs"), 2);
        assert_eq!(ex.counts.logs.load(Relaxed), 1);
        stop(&ex, thread);
    }

    /// With gzip on, the body is gzipped and says so; it inflates to the
    /// records.
    #[test]
    fn gzip_bodies_say_so_and_inflate_to_the_records() {
        let stub = Stub::start();
        let ex = exporter(
            &stub,
            Settings {
                gzip: true,
                ..settings(512, HOUR)
            },
        );
        ex.push(log(0));
        let thread = start(&ex);
        assert_eq!(flush(&ex), 0);
        let (head, body) = {
            let s = stub.state();
            let r = s.requests.iter().find(|r| r.path == "/v1/logs").unwrap();
            (r.head.clone(), r.body.clone())
        };
        assert!(head.contains("Content-Encoding: gzip\r\n"), "{head}");
        let mut plain = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&body[..]), &mut plain)
            .unwrap();
        let req = <opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceRequest as prost::Message>::decode(&plain[..]).unwrap();
        assert_eq!(
            req.resource_logs[0].scope_logs[0].log_records[0].severity_text,
            "r0"
        );
        stop(&ex, thread);
    }

    /// 500 is not retryable in OTLP: one request, the batch fails.
    #[test]
    fn a_500_is_not_retried() {
        let stub = Stub::start();
        stub.set(|s| s.next = [500].into());
        let ex = exporter(&stub, settings(512, HOUR));
        ex.push(log(0));
        let thread = start(&ex);
        assert_eq!(flush(&ex), 0);
        assert_eq!(stub.count("/v1/logs"), 1);
        assert_eq!(ex.counts.failed.load(Relaxed), 1);
        stop(&ex, thread);
    }

    /// A 413 splits the batch in halves, each sent on its own; a single
    /// record refused as too large fails alone.
    #[test]
    fn a_413_splits_the_batch() {
        let stub = Stub::start();
        // The batch of 4, then its first half, refused; the rest taken.
        stub.set(|s| s.next = [413, 413, 200, 200, 200].into());
        let ex = exporter(&stub, settings(512, HOUR));
        for i in 0..4 {
            ex.push(log(i));
        }
        let thread = start(&ex);
        assert_eq!(flush(&ex), 0);
        assert_eq!(
            log_names(&stub),
            [
                names(0..4),
                names(0..2),
                names(0..1),
                names(1..2),
                names(2..4)
            ]
        );
        assert_eq!(ex.counts.logs.load(Relaxed), 4);
        stub.set(|s| s.next = [413].into());
        ex.push(log(9));
        assert_eq!(flush(&ex), 0);
        assert_eq!(ex.counts.failed.load(Relaxed), 1);
        stop(&ex, thread);
    }

    /// Per-signal endpoints (`OTEL_EXPORTER_OTLP_<SIGNAL>_ENDPOINT`): each
    /// signal's requests go to its own URL as it is, with its own timeout
    /// (`.._<SIGNAL>_TIMEOUT`); a signal without one keeps the base
    /// endpoint and its path.
    #[test]
    fn each_signal_goes_to_its_own_endpoint_with_its_own_timeout() {
        let stub = Stub::start();
        let own = |path: &str| {
            super::super::config::parse_endpoint(&format!("{}{path}", stub.url())).unwrap()
        };
        let mut set = settings(512, HOUR);
        set.signals = vec![
            (
                "/v1/traces",
                Some(own("/t/spans")),
                Some(Duration::from_millis(7)),
            ),
            ("/v1/metrics", Some(own("/m")), None),
            ("/v1/logs", None, Some(Duration::from_millis(9))),
        ];
        let ex = exporter(&stub, set);
        let route = |path| {
            let (e, at, timeout) = ex.route(path);
            (e.url(at), timeout)
        };
        let base = stub.url();
        let minute = Duration::from_secs(60);
        assert_eq!(
            route("/v1/traces"),
            (format!("{base}/t/spans"), Duration::from_millis(7))
        );
        assert_eq!(route("/v1/metrics"), (format!("{base}/m"), minute));
        assert_eq!(
            route("/v1/logs"),
            (format!("{base}/v1/logs"), Duration::from_millis(9))
        );
        // And the requests go there.
        ex.push(span("app", 1));
        ex.push(log(2));
        let thread = start(&ex);
        assert_eq!(flush(&ex), 0);
        assert_eq!((stub.count("/t/spans"), stub.count("/v1/logs")), (1, 1));
        assert_eq!(stub.count("/v1/traces"), 0);
        stop(&ex, thread);
    }

    /// One budget for the end: a flush that runs out of time uses it up,
    /// so the next flush of the end returns at once; closing then counts
    /// what is unsent as dropped, exactly once, and takes nothing more.
    #[test]
    fn the_end_has_one_budget_and_closing_counts_the_rest_dropped() {
        let stub = Stub::start();
        stub.set(|s| s.hold = true);
        let ex = exporter(
            &stub,
            Settings {
                shutdown: Duration::from_millis(300),
                ..settings(2, HOUR)
            },
        );
        for i in 0..3 {
            ex.push(log(i));
        }
        let thread = start(&ex);
        let e = ex.clone();
        let left = within("a flush", move || e.flush_until(e.deadline(false)));
        assert_eq!(left, 3, "one batch held, one record waiting");
        let e = ex.clone();
        let t = std::time::Instant::now();
        let left = within("the exit flush", move || e.flush_until(e.deadline(true)));
        assert!(
            t.elapsed() < Duration::from_millis(250),
            "{:?}",
            t.elapsed()
        );
        assert_eq!(left, 3);
        assert_eq!(ex.close(), 3);
        assert_eq!(ex.close(), 0, "counted once");
        ex.push(log(9));
        stub.set(|s| s.hold = false);
        stop(&ex, thread);
        let c = &ex.counts;
        assert_eq!(
            (
                c.logs.load(Relaxed),
                c.failed.load(Relaxed),
                c.dropped.load(Relaxed)
            ),
            (0, 0, 4),
            "the held batch's late answer is not counted"
        );
    }

    /// Retryable answers are retried (with backoff) until one succeeds.
    #[test]
    fn a_failing_batch_is_retried_until_it_is_taken() {
        let stub = Stub::start();
        stub.set(|s| s.next = [503, 502].into());
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
        let totals = crate::site::counter::counters();
        ex.push(log(6));
        assert_eq!(flush(&ex), 0);
        if crate::site::counter::counters() == totals {
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
