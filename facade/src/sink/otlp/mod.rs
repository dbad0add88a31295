//! OpenTelemetry export (cargo feature `otlp`): [`OtlpSink`].

mod config;
mod convert;
mod exporter;
mod http;
mod tls;
mod wire;

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub(crate) use config::read_otel;
#[cfg(test)]
pub(crate) use config::OtelExtra;
pub use config::DEFAULT_ENDPOINT;

use crate::record::level::LevelFilter;
use crate::record::Record;
use crate::sink::{AsyncSink, Overflow, Sink};
use convert::{convert, Extra};
use exporter::{Exporter, Settings};
use http::Endpoint;

/// Sends logs, telemetry events, timed scopes and counters to an
/// OpenTelemetry collector over OTLP/HTTP with protobuf bodies.
///
/// - Log records become OTLP `LogRecord`s: severity number and text, the
///   message as body, typed fields as attributes (integers stay integers),
///   the caller's timestamp, and the record's target as instrumentation
///   scope (sent once per request for its records, as is the resource).
///   `thread.*` and `code.*` attributes only when asked for
///   ([`thread_attributes`](OtlpSinkBuilder::thread_attributes),
///   [`code_attributes`](OtlpSinkBuilder::code_attributes)).
/// - Telemetry events become log records whose `event_name` is the event.
/// - Timed scopes ([`scope!`](crate::scope), [`#[timed]`](crate::timed))
///   become spans: trace and span ids from the scope ids (with a random
///   per-process prefix), the parent's span id, start and end times.
/// - Counters ([`counter!`](crate::counter)) are read every export interval
///   (and at flush) and sent as cumulative monotonic `Sum` metrics, one per
///   counter name, when they changed.
/// - Resource: `service.name` (the builder's, else `OTEL_SERVICE_NAME` for
///   [`from_env`](Self::from_env), else the executable's name),
///   `host.name`, `process.pid`, and `OTEL_RESOURCE_ATTRIBUTES`.
///
/// The caller's cost is [`AsyncSink`]'s: the record is captured into a
/// bounded queue with the [`Overflow`] policy chosen. Conversion, batching,
/// encoding and sending happen on two background threads (the queue's
/// writer and the exporter). The caller never waits on the network: while
/// the collector is in trouble, a record that finds the exporter's buffer
/// full is dropped and counted. A batch that cannot be sent is retried as
/// the OTLP specification says (connection errors, timeouts, 429, 502,
/// 503, 504; `Retry-After` honoured, else exponential backoff with jitter)
/// for [`retry_for`](OtlpSinkBuilder::retry_for), then counted in
/// [`OtlpStats::failed`] and reported once on stderr; 413 splits it. The
/// end (flushes, the exit handler, the drop) is bounded by
/// [`shutdown_timeout`](OtlpSinkBuilder::shutdown_timeout) in all, after
/// which what is unsent counts as dropped. So every accepted record ends
/// up exactly once in `logs + spans`, `failed` or `dropped` (scope start
/// events are folded into their span and not counted), and one line at
/// exit says so when anything was lost. `https://` endpoints need the
/// cargo feature `otlp-tls` (rustls; the system's root certificates, or a
/// CA file through [`certificate`](OtlpSinkBuilder::certificate)); gRPC is
/// not supported. The guide's telemetry chapter has the details.
///
/// ```no_run
/// use std::sync::Arc;
/// let otlp = Arc::new(elide::sink::OtlpSink::builder("http://127.0.0.1:4318").build()?);
/// elide::add_sink(otlp.clone());
/// elide::info!(uid = "task.000001", "started");
/// elide::flush(); // everything so far is sent, or counted failed
/// println!("{:?}", otlp.stats());
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct OtlpSink {
    /// Its queue and exporter, shared with [`OtlpSink::installed_stats`].
    entry: Arc<Entry>,
    done: Mutex<Option<mpsc::Receiver<()>>>,
    /// The end's summary line has been written.
    summarized: AtomicBool,
}

/// What [`OtlpSink::installed_stats`] reads of a live sink: its
/// exporter and its queue's counters.
struct Entry {
    queue: AsyncSink,
    exporter: Arc<Exporter>,
}

/// The sinks alive (however they were built: from `RADICAL_LOG_TGT`
/// too, where no one holds a handle).
static LIVE: Mutex<Vec<std::sync::Weak<Entry>>> = Mutex::new(Vec::new());

impl std::fmt::Debug for OtlpSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OtlpSink")
            .field("exporter", &self.entry.exporter)
            .finish()
    }
}

/// Counters of an [`OtlpSink`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OtlpStats {
    /// Log records (and telemetry events) the collector accepted.
    pub logs: u64,
    /// Spans the collector accepted.
    pub spans: u64,
    /// Records lost because their batch could not be sent in time or was
    /// refused (and records the conversion failed on).
    pub failed: u64,
    /// Records dropped by the queue ([`Overflow::Drop`]).
    pub dropped: u64,
    /// Successful counter exports.
    pub metric_exports: u64,
}

/// Builder of an [`OtlpSink`]; see [`OtlpSink::builder`].
#[derive(Debug)]
pub struct OtlpSinkBuilder {
    endpoint: Result<Endpoint, String>,
    url: String,
    service_name: Option<String>,
    resource: Vec<(String, String)>,
    settings: Settings,
    capacity: usize,
    overflow: Overflow,
    level: LevelFilter,
    /// `OTEL_SDK_DISABLED=true`: [`build_or_warn`](Self::build_or_warn)
    /// builds nothing.
    disabled: bool,
    /// The CA certificates (PEM) an `https://` endpoint is checked
    /// against, instead of the system's roots.
    certificate: Option<PathBuf>,
    /// Per signal path: the CA file of its own `https://` endpoint.
    signal_certificates: Vec<(&'static str, PathBuf)>,
    /// Thread and code attributes on every record.
    extra: Extra,
}

impl OtlpSink {
    /// A builder for the collector at `endpoint` (`http://host:port` or,
    /// with the feature `otlp-tls`, `https://host:port`, with an optional
    /// path prefix; `/v1/logs`, `/v1/traces` and `/v1/metrics`
    /// are appended).
    pub fn builder(endpoint: &str) -> OtlpSinkBuilder {
        OtlpSinkBuilder {
            endpoint: config::parse_endpoint(endpoint),
            url: endpoint.to_owned(),
            service_name: None,
            resource: Vec::new(),
            settings: Settings {
                batch: 512,
                buffer: 8192,
                interval: Duration::from_secs(5),
                retry_for: Duration::from_secs(10),
                request_timeout: Duration::from_secs(5),
                shutdown: Duration::from_secs(5),
                signals: Vec::new(),
                gzip: false,
            },
            capacity: crate::sink::DEFAULT_CAPACITY,
            overflow: Overflow::Block,
            level: LevelFilter::Trace,
            disabled: false,
            certificate: None,
            signal_certificates: Vec::new(),
            extra: Extra::default(),
        }
    }

    /// The sink's counters. Every record the sink accepted is, once it
    /// is no longer pending, in exactly one of `logs + spans`, `failed`
    /// and `dropped`.
    pub fn stats(&self) -> OtlpStats {
        self.entry.stats()
    }

    /// The endpoint and counters of every OTLP sink alive, those built
    /// from `RADICAL_LOG_TGT=otlp` included (no handle is needed), in the
    /// order they were built.
    pub fn installed_stats() -> Vec<(String, OtlpStats)> {
        let live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
        live.iter()
            .filter_map(std::sync::Weak::upgrade)
            .map(|e| (e.exporter.endpoint.url(""), e.stats()))
            .collect()
    }

    /// Writes the one line that says what was lost, once, if anything was.
    fn summarize(&self, when: &str) {
        let s = self.stats();
        if s.failed + s.dropped == 0 || self.summarized.swap(true, Ordering::SeqCst) {
            return;
        }
        warn(&format!(
            "OTLP {}: {when}: exported {} ({} logs, {} spans), failed {}, dropped {}",
            self.endpoint(),
            s.logs + s.spans,
            s.logs,
            s.spans,
            s.failed,
            s.dropped
        ));
    }

    /// The endpoint's base URL.
    pub fn endpoint(&self) -> String {
        self.entry.exporter.endpoint.url("")
    }
}

impl OtlpSinkBuilder {
    /// Adds an HTTP header to every request (e.g. an API key). A name
    /// that is not an HTTP token or a value with control characters (CR,
    /// LF: they would start a header of their own) is left out, with one
    /// warning.
    pub fn header(mut self, name: &str, value: &str) -> Self {
        if let Some(why) = config::bad_header(name, value) {
            warn(&format!("OTLP header {name:?} left out ({why})"));
            return self;
        }
        if let Ok(e) = &mut self.endpoint {
            e.headers.push((name.to_owned(), value.to_owned()));
        }
        self
    }
    /// Checks an `https://` endpoint's certificate against the CA
    /// certificates of this PEM file instead of the system's root
    /// certificates (`OTEL_EXPORTER_OTLP_CERTIFICATE` for
    /// [`builder_from_env`](OtlpSink::builder_from_env)); an unreadable
    /// file or one without a certificate makes [`build`](Self::build) fail.
    /// Unused for `http://`. `https://` needs the cargo feature `otlp-tls`.
    pub fn certificate(mut self, pem_file: impl AsRef<Path>) -> Self {
        self.certificate = Some(pem_file.as_ref().to_owned());
        self
    }
    /// Sends `code.namespace`, `code.filepath` and `code.lineno` (the
    /// site's module, file and line) with every log record and span
    /// (default off: they repeat the same few values on every record of a
    /// site, and make a small record two to three times larger).
    pub fn code_attributes(mut self, on: bool) -> Self {
        self.extra.code = on;
        self
    }
    /// Sends `thread.id` (elide's thread number) and `thread.name` with
    /// every log record and span (default off).
    pub fn thread_attributes(mut self, on: bool) -> Self {
        self.extra.thread = on;
        self
    }
    /// Sets `service.name`.
    pub fn service_name(mut self, name: &str) -> Self {
        self.service_name = Some(name.to_owned());
        self
    }
    /// Sets `service.name` unless one is set already (the root namespace,
    /// which gives way to `OTEL_SERVICE_NAME`).
    pub fn default_service_name(mut self, name: &str) -> Self {
        self.service_name.get_or_insert_with(|| name.to_owned());
        self
    }
    /// Adds a resource attribute.
    pub fn resource_attribute(mut self, key: &str, value: &str) -> Self {
        self.resource.push((key.to_owned(), value.to_owned()));
        self
    }
    /// Items per request (default 512).
    pub fn batch_size(mut self, n: usize) -> Self {
        self.settings.batch = n.max(1);
        self
    }
    /// Converted records waiting for export before the queue's writer
    /// waits (default 8192).
    pub fn buffer(mut self, n: usize) -> Self {
        self.settings.buffer = n.max(1);
        self
    }
    /// How often a partial batch and the counters are sent (default 5 s).
    pub fn export_interval(mut self, d: Duration) -> Self {
        self.settings.interval = d.max(Duration::from_millis(1));
        self
    }
    /// How long a failing batch is retried before it counts as failed
    /// (default 10 s).
    pub fn retry_for(mut self, d: Duration) -> Self {
        self.settings.retry_for = d;
        self
    }
    /// gzip the request bodies (default off; `OTEL_EXPORTER_OTLP_COMPRESSION=gzip`
    /// for [`builder_from_env`](OtlpSink::builder_from_env)).
    pub fn gzip(mut self, on: bool) -> Self {
        self.settings.gzip = on;
        self
    }
    /// Connect, write and read timeout of one request (default 5 s).
    pub fn request_timeout(mut self, d: Duration) -> Self {
        self.settings.request_timeout = d.max(Duration::from_millis(1));
        self
    }
    /// Queue capacity in records ([`AsyncSinkBuilder::capacity`](crate::sink::AsyncSinkBuilder::capacity)).
    pub fn capacity(mut self, n: usize) -> Self {
        self.capacity = n;
        self
    }
    /// What callers do when the queue is full (default `Block`).
    pub fn overflow(mut self, policy: Overflow) -> Self {
        self.overflow = policy;
        self
    }
    /// The most verbose log level exported (default trace: the sites'
    /// own levels decide).
    pub fn level(mut self, level: LevelFilter) -> Self {
        self.level = level;
        self
    }
    /// The most a flush waits for the exporter, and the most all of the
    /// end's waits together take (the guard's flush, the exit handler's,
    /// the sink's drop): what is unsent then is counted as dropped and
    /// said once (default 5 s; on drop, failing batches are not retried).
    pub fn shutdown_timeout(mut self, d: Duration) -> Self {
        self.settings.shutdown = d;
        self
    }

    /// Starts the exporter. A malformed endpoint is an `InvalidInput` error
    /// naming it.
    pub fn build(mut self) -> io::Result<OtlpSink> {
        let invalid = |url: &str, why: String| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("OTLP endpoint {url:?}: {why}"),
            )
        };
        let mut endpoint = self.endpoint.map_err(|why| invalid(&self.url, why))?;
        let base_ca = self.certificate.as_deref();
        with_tls(&mut endpoint, base_ca).map_err(|why| invalid(&self.url, why))?;
        for (path, own, _) in &mut self.settings.signals {
            let Some(e) = own else { continue };
            let ca = self
                .signal_certificates
                .iter()
                .find(|(p, _)| p == path)
                .map(|(_, ca)| ca.as_path())
                .or(base_ca);
            with_tls(e, ca).map_err(|why| invalid(&e.url(""), why))?;
        }
        let resource = resource(self.service_name, self.resource);
        let exporter = Arc::new(Exporter::new(endpoint, resource, self.settings.clone()));
        let (tx, rx) = mpsc::channel();
        let ex = exporter.clone();
        std::thread::Builder::new()
            .name("elide-otlp".into())
            .spawn(move || {
                ex.run();
                let _ = tx.send(());
            })?;
        let feed = Feed {
            exporter: exporter.clone(),
            // The process's one salt: every sink, and the JSON lines, give a
            // scope the same ids.
            salt: crate::record::trace_ids::salt(),
            level: self.level,
            extra: self.extra,
        };
        let queue = AsyncSink::builder()
            .capacity(self.capacity)
            .overflow(self.overflow)
            .name(format!("OTLP {}", exporter.endpoint.url("")))
            // The feed's flush ends by the exporter's deadline; the
            // queue's own bound only guards against a writer stuck
            // elsewhere.
            .shutdown_timeout(self.settings.shutdown + Duration::from_secs(1))
            .wrap(Arc::new(feed));
        let entry = Arc::new(Entry { queue, exporter });
        let mut live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
        live.retain(|w| w.strong_count() > 0);
        live.push(Arc::downgrade(&entry));
        drop(live);
        Ok(OtlpSink {
            done: Mutex::new(Some(rx)),
            entry,
            summarized: AtomicBool::new(false),
        })
    }

    /// [`build`](Self::build), or one warning naming `var` and `None`;
    /// `None` with one note when `OTEL_SDK_DISABLED` is `true` (for a
    /// builder from [`builder_from_env`](OtlpSink::builder_from_env)).
    pub fn build_or_warn(self, var: &str) -> Option<OtlpSink> {
        if self.disabled {
            warn("OTEL_SDK_DISABLED=true: no OpenTelemetry exporter is installed");
            return None;
        }
        let url = self.url.clone();
        match self.build() {
            Ok(s) => Some(s),
            Err(e) => {
                warn(&format!(
                    "{var}={url:?} is not usable ({e}); no OpenTelemetry exporter is installed"
                ));
                None
            }
        }
    }
}

/// The TLS configuration of an `https://` endpoint (none for `http://`).
fn with_tls(e: &mut Endpoint, ca: Option<&Path>) -> Result<(), String> {
    if e.https {
        e.tls = Some(tls::config(ca, &e.host)?);
    }
    Ok(())
}

pub(crate) fn warn(msg: &str) {
    let _ = crate::os::process::write_stderr(format!("elide: {msg}\n").as_bytes());
}

/// The standard `OTEL_*` settings the exporter takes, as the environment
/// snapshot holds them (read in `runtime`, which knows the variables'
/// names): each the variable's name and its non-blank value.
#[derive(Clone, Debug, Default)]
pub(crate) struct OtelVars {
    pub(crate) endpoint: Option<String>,
    pub(crate) headers: Option<(&'static str, String)>,
    pub(crate) resource_attributes: Option<(&'static str, String)>,
    pub(crate) service_name: Option<String>,
    /// Per-signal endpoints, timeouts, `OTEL_SDK_DISABLED`.
    pub(crate) extra: config::OtelExtra,
}

/// [`OtlpSink::builder_from_env`] over given settings, warning through
/// `warn` (so its tests need not change the process's environment or read
/// stderr).
pub(crate) fn builder_from_vars(
    endpoint: Option<&str>,
    vars: OtelVars,
    warn: impl Fn(&str),
) -> OtlpSinkBuilder {
    let url = endpoint
        .map(str::to_owned)
        .or(vars.endpoint)
        .unwrap_or_else(|| DEFAULT_ENDPOINT.to_owned());
    let mut b = OtlpSink::builder(&url);
    for (var, is_header) in [(vars.headers, true), (vars.resource_attributes, false)] {
        let Some((name, text)) = var else { continue };
        let (ok, bad) = config::parse_pairs(&text);
        for item in bad {
            warn(&format!("{name}: ignoring {item:?} (expected key=value)"));
        }
        for (k, v) in ok {
            b = if !is_header {
                b.resource_attribute(&k, &v)
            } else if let Some(why) = config::bad_header(&k, &v) {
                warn(&format!("{name}: ignoring header {k:?} ({why})"));
                b
            } else {
                b.header(&k, &v)
            };
        }
    }
    let extra = vars.extra;
    b.disabled = extra.disabled;
    b.certificate = extra.certificate;
    b.signal_certificates = extra.signal_certificates;
    b.settings.gzip = extra.gzip;
    if let Some(t) = extra.timeout {
        b = b.request_timeout(t);
    }
    for (path, url, timeout) in extra.signals {
        let (_, sig) = config::SIGNALS
            .iter()
            .find(|(p, _)| *p == path)
            .unwrap_or(&("", ""));
        let endpoint = url.and_then(|u| {
            let unusable = |why| {
                warn(&format!(
                    "OTEL_EXPORTER_OTLP_{sig}_ENDPOINT={u:?} is not usable ({why}); \
                     the base endpoint is used"
                ))
            };
            config::parse_endpoint(&u).map_err(unusable).ok()
        });
        b.settings.signals.push((path, endpoint, timeout));
    }
    if let Some(s) = vars.service_name {
        b = b.service_name(&s);
    }
    b
}

/// The encoded `Resource`: `service.name`, `host.name`, `process.pid`,
/// then the extra attributes whose key is not taken yet.
fn resource(service: Option<String>, extra: Vec<(String, String)>) -> Vec<u8> {
    use crate::record::value::Value;
    const ATTRIBUTES: u8 = 1;
    let service = service
        .or_else(|| {
            extra
                .iter()
                .find(|(k, _)| k == "service.name")
                .map(|(_, v)| v.clone())
        })
        .or_else(crate::os::process::exe_name)
        .unwrap_or_else(|| "elide".to_owned());
    let (host, pid) = (crate::os::host::hostname(), std::process::id());
    let own = [
        ("service.name", Value::Str(&service)),
        ("host.name", Value::Str(&host)),
        ("process.pid", Value::I64(i64::from(pid))),
    ];
    let extra = extra.iter().map(|(k, v)| (k.as_str(), Value::Str(v)));
    let (mut b, mut keys) = (Vec::new(), Vec::new());
    for (k, v) in own.into_iter().chain(extra) {
        if !keys.contains(&k) {
            keys.push(k);
            convert::kv(&mut b, ATTRIBUTES, k, &v);
        }
    }
    b
}

impl Entry {
    /// [`OtlpStats`] from the exporter's counters and its queue's.
    fn stats(&self) -> OtlpStats {
        let (c, q) = (&self.exporter.counts, self.queue.stats());
        let load = |a: &AtomicU64| a.load(Ordering::Relaxed);
        OtlpStats {
            logs: load(&c.logs),
            spans: load(&c.spans),
            failed: load(&c.failed) + q.failed,
            dropped: load(&c.dropped) + q.dropped,
            metric_exports: load(&c.metric_exports),
        }
    }
}

/// The sink the queue's writer feeds: converts and hands to the exporter.
struct Feed {
    exporter: Arc<Exporter>,
    salt: u64,
    level: LevelFilter,
    extra: Extra,
}

impl Sink for Feed {
    fn max_level(&self) -> LevelFilter {
        self.level
    }
    fn wants_telemetry(&self) -> bool {
        true
    }
    fn emit(&self, record: &Record<'_>) {
        self.exporter.push(convert(record, self.salt, self.extra));
    }
    /// Waits for the exporter until its deadline. At exit, what is left
    /// then is counted as dropped (the sink's summary says so).
    fn flush(&self) {
        let exiting = crate::os::process::exiting();
        let left = self.exporter.flush_until(self.exporter.deadline(exiting));
        if left > 0 && exiting {
            self.exporter.close();
        } else if left > 0 {
            warn(&format!(
                "OTLP {}: flush gave up; {left} records not yet sent",
                self.exporter.endpoint.url("")
            ));
        }
    }
}

impl Sink for OtlpSink {
    fn max_level(&self) -> LevelFilter {
        self.entry.queue.max_level()
    }
    fn wants_telemetry(&self) -> bool {
        true
    }
    fn emit(&self, record: &Record<'_>) {
        self.entry.queue.emit(record);
    }
    fn flush(&self) {
        self.entry.queue.flush();
        if crate::os::process::exiting() {
            self.summarize("at exit");
        }
    }
}

impl Drop for OtlpSink {
    fn drop(&mut self) {
        // Drain the queue, send what is left (one attempt per batch) and
        // stop, within the one shutdown budget (an earlier flush may have
        // used it up).
        self.entry.exporter.hurry();
        let deadline = self.entry.exporter.deadline(true);
        self.entry.queue.flush();
        self.entry.exporter.stop();
        let done = self.done.lock().ok().and_then(|mut d| d.take());
        if let Some(rx) = done {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            if rx.recv_timeout(left).is_err() {
                self.entry.exporter.close();
            }
        }
        self.summarize("shut down");
    }
}

#[cfg(test)]
mod stub;

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::collections::HashMap;
    use std::time::Duration;

    use opentelemetry_proto::tonic::common::v1::{any_value, KeyValue};
    use opentelemetry_proto::tonic::resource::v1::Resource;
    use prost::Message;

    use super::stub::{within, Stub};
    use super::*;
    use crate::record::level::Level;
    use crate::record::metadata::TEST_LOG;

    /// `builder_from_vars` over `vars` (an unset variable is left out;
    /// names as the environment spells them): the builder and the warnings.
    pub(super) fn from_vars(
        endpoint: Option<&str>,
        vars: &[(&str, &str)],
    ) -> (OtlpSinkBuilder, Vec<String>) {
        let vars: HashMap<&str, &str> = vars.iter().copied().collect();
        let get = |k: &'static str| vars.get(k).map(|v| (k, (*v).to_owned()));
        let otel = OtelVars {
            endpoint: get("OTEL_EXPORTER_OTLP_ENDPOINT").map(|(_, v)| v),
            headers: get("OTEL_EXPORTER_OTLP_HEADERS"),
            resource_attributes: get("OTEL_RESOURCE_ATTRIBUTES"),
            service_name: get("OTEL_SERVICE_NAME").map(|(_, v)| v),
            extra: config::read_otel(&|k| vars.get(k).map(|v| (*v).to_owned()), &|_| {}),
        };
        let warnings = RefCell::new(Vec::new());
        let b = builder_from_vars(endpoint, otel, |w| warnings.borrow_mut().push(w.to_owned()));
        (b, warnings.into_inner())
    }

    fn pair(k: &str, v: &str) -> (String, String) {
        (k.to_owned(), v.to_owned())
    }

    /// The standard variables: endpoint, headers (`%XX` decoded),
    /// resource attributes and service name; a malformed item is warned
    /// about.
    #[test]
    fn the_otel_variables_configure_the_exporter() {
        let (b, warnings) = from_vars(
            None,
            &[
                ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318/otlp"),
                ("OTEL_EXPORTER_OTLP_HEADERS", "x-api-key=a%20b,broken"),
                ("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=test"),
                ("OTEL_SERVICE_NAME", "checkout"),
            ],
        );
        assert_eq!(b.url, "http://collector:4318/otlp");
        let e = b.endpoint.as_ref().unwrap();
        assert_eq!(
            (e.host.as_str(), e.port, e.base.as_str()),
            ("collector", 4318, "/otlp")
        );
        assert_eq!(e.headers, [pair("x-api-key", "a b")]);
        assert_eq!(b.resource, [pair("deployment.environment", "test")]);
        assert_eq!(b.service_name.as_deref(), Some("checkout"));
        assert_eq!(
            warnings,
            ["OTEL_EXPORTER_OTLP_HEADERS: ignoring \"broken\" (expected key=value)"]
        );
    }

    /// Unset variables give the defaults; an endpoint given wins over the
    /// variable; the root namespace names the service only when nothing
    /// else did.
    #[test]
    fn unset_variables_give_defaults_and_a_given_endpoint_wins() {
        let (b, warnings) = from_vars(None, &[]);
        assert_eq!(
            (b.url.as_str(), b.service_name.as_deref()),
            (DEFAULT_ENDPOINT, None)
        );
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(
            b.default_service_name("root").service_name.as_deref(),
            Some("root")
        );
        let (b, _) = from_vars(
            Some("http://given:1"),
            &[
                ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://env:2"),
                ("OTEL_SERVICE_NAME", "checkout"),
            ],
        );
        assert_eq!(b.url, "http://given:1");
        assert_eq!(
            b.default_service_name("root").service_name.as_deref(),
            Some("checkout")
        );
    }

    fn attributes(resource: Vec<u8>) -> Vec<KeyValue> {
        let r = Resource::decode(&resource[..]).expect("a Resource");
        r.attributes
    }

    fn text(v: &str) -> Option<any_value::Value> {
        Some(any_value::Value::StringValue(v.to_owned()))
    }

    /// The resource: `service.name`, `host.name`, `process.pid`, then the
    /// extra attributes that do not repeat them.
    #[test]
    fn the_resource_names_service_host_and_process() {
        let r = attributes(resource(
            Some("svc".into()),
            vec![
                pair("deployment.environment", "t"),
                pair("host.name", "other"),
                pair("service.name", "ignored"),
            ],
        ));
        let got: Vec<(String, Option<any_value::Value>)> = r
            .into_iter()
            .map(|a| (a.key, a.value.and_then(|v| v.value)))
            .collect();
        let pid = any_value::Value::IntValue(i64::from(std::process::id()));
        assert_eq!(
            got,
            [
                ("service.name".to_owned(), text("svc")),
                ("host.name".to_owned(), text(&crate::os::host::hostname())),
                ("process.pid".to_owned(), Some(pid)),
                ("deployment.environment".to_owned(), text("t")),
            ]
        );
        // Without a name: the attributes' `service.name`, else the
        // executable's name.
        let name = |extra| {
            attributes(resource(None, extra))
                .remove(0)
                .value
                .and_then(|v| v.value)
        };
        assert_eq!(
            name(vec![pair("a", "b"), pair("service.name", "attr")]),
            text("attr")
        );
        let exe = crate::os::process::exe_name().unwrap_or_else(|| "elide".to_owned());
        assert_eq!(name(vec![]), text(&exe));
    }

    /// Every sink of the process uses its one salt, so a scope has the
    /// same ids in every sink (and in JSON lines).
    #[test]
    fn the_salt_is_the_processs() {
        let salt = crate::record::trace_ids::salt;
        assert_eq!(salt(), salt());
    }

    /// `endpoint()` and `Debug` name the collector (base path included).
    #[test]
    fn endpoint_and_debug_name_the_collector() {
        let stub = Stub::start();
        let s = OtlpSink::builder(&format!("{}/otlp/", stub.url()))
            .build()
            .unwrap();
        let url = format!("{}/otlp", stub.url());
        assert_eq!(s.endpoint(), url);
        let dbg = format!("{s:?}");
        assert!(dbg.starts_with("OtlpSink") && dbg.contains(&url), "{dbg}");
        within("dropping the sink", move || drop(s));
    }

    /// Without the `otlp-tls` feature an `https://` endpoint is refused
    /// when the sink is built, the error naming the feature to turn on.
    #[cfg(not(feature = "otlp-tls"))]
    #[test]
    fn https_without_the_tls_feature_names_the_feature() {
        let e = OtlpSink::builder("https://collector:4318")
            .build()
            .unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        assert!(e.to_string().contains("`otlp-tls`"), "{e}");
    }

    fn sink(stub: &Stub) -> OtlpSinkBuilder {
        OtlpSink::builder(&stub.url()).export_interval(Duration::from_secs(3600))
    }

    pub(super) fn emit(s: &OtlpSink, message: &'static str) {
        s.emit(&Record::new(
            &TEST_LOG,
            Level::Info,
            format_args!("{message}"),
            &[],
        ));
    }

    fn bodies(stub: &Stub) -> Vec<Option<any_value::Value>> {
        stub.log_batches()
            .concat()
            .into_iter()
            .map(|(_, l)| l.body.and_then(|b| b.value))
            .collect()
    }

    /// The sink's level is the builder's; it takes telemetry; a flush
    /// returns once what was emitted is sent and counted.
    #[test]
    fn a_flush_returns_once_the_record_is_sent_and_counted() {
        let stub = Stub::start();
        let s = sink(&stub).level(LevelFilter::Info).build().unwrap();
        assert_eq!(s.max_level(), LevelFilter::Info);
        assert!(s.wants_telemetry());
        emit(&s, "sent");
        s.flush();
        assert_eq!(bodies(&stub), [text("sent")], "sent when flush returns");
        let st = s.stats();
        assert_eq!((st.logs, st.spans, st.failed, st.dropped), (1, 0, 0, 0));
        within("dropping the sink", move || drop(s));
    }

    /// Dropping the sink sends what is still queued.
    #[test]
    fn dropping_the_sink_sends_what_is_left() {
        let stub = Stub::start();
        let s = sink(&stub).build().unwrap();
        emit(&s, "last");
        within("dropping the sink", move || drop(s));
        assert_eq!(bodies(&stub), [text("last")]);
    }

    /// Dropping the sink does not retry: a failing batch gets one attempt
    /// (and the drop returns), however long `retry_for` is.
    #[test]
    fn dropping_the_sink_gives_a_failing_batch_one_attempt() {
        let stub = Stub::start();
        stub.set(|s| s.status = 503);
        let s = sink(&stub)
            .retry_for(Duration::from_secs(3600))
            .request_timeout(Duration::from_secs(60))
            .build()
            .unwrap();
        emit(&s, "lost");
        within("dropping the sink", move || drop(s));
        assert_eq!(stub.count("/v1/logs"), 1);
    }

    /// Any retry and request timeouts make a sink (no arithmetic on them
    /// underflows).
    #[test]
    fn any_timeouts_build() {
        let stub = Stub::start();
        let s = sink(&stub)
            .retry_for(Duration::ZERO)
            .request_timeout(Duration::from_millis(1))
            .build_or_warn("TEST_ENDPOINT")
            .expect("a valid endpoint builds");
        within("dropping the sink", move || drop(s));
    }

    /// Without `OTEL_EXPORTER_OTLP_ENDPOINT`, `from_env` makes a sink for
    /// the default endpoint.
    #[test]
    fn from_env_defaults_to_the_local_collector() {
        if std::env::var_os("OTEL_EXPORTER_OTLP_ENDPOINT").is_none() {
            let s = OtlpSink::from_env().expect("the default endpoint is valid");
            assert_eq!(s.endpoint(), DEFAULT_ENDPOINT);
            within("dropping the sink", move || drop(s));
        }
    }

    /// A batch the collector refuses counts as failed in `stats`.
    #[test]
    fn a_refused_record_counts_as_failed() {
        let stub = Stub::start();
        stub.set(|s| s.status = 400);
        let s = sink(&stub).build().unwrap();
        emit(&s, "refused");
        s.flush();
        let st = s.stats();
        assert_eq!((st.logs, st.failed, st.dropped), (0, 1, 0));
        within("dropping the sink", move || drop(s));
    }
}

#[cfg(test)]
mod otel_tests {
    use super::stub::{within, Stub};
    use super::tests::{emit, from_vars};
    use super::*;

    /// `OTEL_EXPORTER_OTLP_HEADERS='x-a=1%0D%0AX-Injected: yes'`: the
    /// decoded CR/LF would write a header of its own; the header is left
    /// out with one warning naming the variable, the others are kept.
    #[test]
    fn a_header_with_a_line_break_is_left_out_with_a_warning() {
        let (b, warnings) = from_vars(
            None,
            &[(
                "OTEL_EXPORTER_OTLP_HEADERS",
                "x-a=1%0D%0AX-Injected: yes,x-b=2",
            )],
        );
        let e = b.endpoint.as_ref().unwrap();
        assert_eq!(e.headers, [("x-b".to_owned(), "2".to_owned())]);
        assert_eq!(
            warnings,
            ["OTEL_EXPORTER_OTLP_HEADERS: ignoring header \"x-a\" (its value has control characters)"]
        );
        let b = OtlpSink::builder("http://h:1").header("x-c", "1\r\nX-Injected: yes");
        assert!(b.endpoint.unwrap().headers.is_empty());
    }

    /// A per-signal endpoint is used as it is (no `/v1/logs` appended);
    /// the other signals go to the base endpoint with their paths.
    #[test]
    fn a_per_signal_endpoint_is_used_as_it_is() {
        let stub = Stub::start();
        let logs = format!("{}/custom/logs", stub.url());
        let base = format!("{}/base", stub.url());
        let (b, warnings) = from_vars(
            None,
            &[
                ("OTEL_EXPORTER_OTLP_ENDPOINT", &base),
                ("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", &logs),
                ("OTEL_EXPORTER_OTLP_TIMEOUT", "1500"),
            ],
        );
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(b.settings.request_timeout, Duration::from_millis(1500));
        let s = b.build().unwrap();
        emit(&s, "routed");
        s.flush();
        assert_eq!(s.stats().logs, 1);
        assert_eq!(stub.count("/custom/logs"), 1);
        assert_eq!(stub.count("/base/v1/logs"), 0);
        within("dropping the sink", move || drop(s));
    }

    /// A malformed per-signal endpoint is warned about, naming its
    /// variable; that signal goes to the base endpoint.
    #[test]
    fn a_malformed_per_signal_endpoint_falls_back_to_the_base() {
        let (b, warnings) = from_vars(None, &[("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "nope")]);
        assert_eq!(
            warnings,
            [
                "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=\"nope\" is not usable (expected \
              http://host[:port] or https://host[:port]); the base endpoint is used"
            ]
        );
        assert!(matches!(
            b.settings.signals[..],
            [("/v1/traces", None, None)]
        ));
    }

    /// `OTEL_SDK_DISABLED=true`: nothing is built.
    #[test]
    fn sdk_disabled_builds_no_exporter() {
        let (b, _) = from_vars(None, &[("OTEL_SDK_DISABLED", "true")]);
        assert!(b.build_or_warn("OTEL_EXPORTER_OTLP_ENDPOINT").is_none());
        let (b, _) = from_vars(None, &[("OTEL_SDK_DISABLED", "false")]);
        assert!(!b.disabled);
    }
}
