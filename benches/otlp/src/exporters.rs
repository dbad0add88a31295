//! The two exporters under test, each set up in a process of its own, and
//! the one call site both measure: `info!("task {} done in {} us", id, us)`.
//!
//! - elide: [`OtlpSink`] with its defaults (65,536-record queue, `Block`,
//!   batches of 512), installed as the only sink at level Info; `elide-all`
//!   the same with its optional `code.*` and `thread.*` attributes on.
//! - peer: `tracing` with `opentelemetry-appender-tracing`'s layer as the
//!   global subscriber, into `opentelemetry_sdk`'s `BatchLogProcessor`
//!   (its own background thread, batches of 512) and `opentelemetry-otlp`'s
//!   HTTP/protobuf exporter with its default blocking reqwest client; a
//!   global `Targets` filter at INFO keeps the transport's own events out
//!   (the appender's documented set-up). The
//!   processor drops records when its queue is full (it has no blocking
//!   policy), so its queue holds a whole burst: nothing is lost and nothing
//!   measured is a cheap drop.

use std::sync::Arc;

use elide::sink::OtlpSink;
use elide::{LevelFilter, Sink};
use opentelemetry_otlp::{LogExporter, Protocol, WithExportConfig};
use opentelemetry_sdk::logs::{BatchConfigBuilder, BatchLogProcessor, SdkLoggerProvider};
use opentelemetry_sdk::Resource;
use tracing::Level;
use tracing_subscriber::filter::{LevelFilter as TracingLevel, Targets};
use tracing_subscriber::layer::SubscriberExt;

/// The peer's queue: larger than any burst the harness sends.
pub(crate) const PEER_QUEUE: usize = 1 << 18;

/// Targets of the peer's own transport, kept out of its export.
const QUIET: [&str; 6] = [
    "hyper",
    "hyper_util",
    "reqwest",
    "h2",
    "tower",
    "opentelemetry",
];

/// An installed exporter; [`flush`](Self::flush) returns once everything
/// emitted so far was sent.
pub(crate) enum Exporter {
    Elide(Arc<OtlpSink>),
    Peer(SdkLoggerProvider),
}

impl Exporter {
    /// Installs `lib`'s exporter (`elide` or `peer`) towards `endpoint`.
    pub(crate) fn install(lib: &str, endpoint: &str) -> Exporter {
        match lib {
            "elide" | "elide-all" => {
                let all = lib == "elide-all";
                let sink = Arc::new(
                    OtlpSink::builder(endpoint)
                        .service_name("elide-bench-otlp")
                        .code_attributes(all)
                        .thread_attributes(all)
                        .build()
                        .expect("elide's OtlpSink"),
                );
                elide::set_sinks([sink.clone() as Arc<dyn Sink>]);
                elide::set_level(LevelFilter::Info);
                Exporter::Elide(sink)
            }
            "peer" => {
                let exporter = LogExporter::builder()
                    .with_http()
                    .with_protocol(Protocol::HttpBinary)
                    .with_endpoint(format!("{endpoint}/v1/logs"))
                    .build()
                    .expect("opentelemetry-otlp LogExporter");
                let batch = BatchConfigBuilder::default()
                    .with_max_queue_size(PEER_QUEUE)
                    .with_max_export_batch_size(512)
                    .build();
                let processor = BatchLogProcessor::builder(exporter)
                    .with_batch_config(batch)
                    .build();
                let provider = SdkLoggerProvider::builder()
                    .with_resource(
                        Resource::builder()
                            .with_service_name("tracing-opentelemetry-bench")
                            .build(),
                    )
                    .with_log_processor(processor)
                    .build();
                let layer = opentelemetry_appender_tracing::layer::OpenTelemetryTracingBridge::new(
                    &provider,
                );
                // The exporter's own HTTP stack logs through `tracing`:
                // without this filter (the one opentelemetry-appender-tracing's
                // example sets) its events would be exported too.
                let filter = Targets::new()
                    .with_default(Level::INFO)
                    .with_targets(QUIET.map(|t| (t, TracingLevel::OFF)));
                let subscriber = tracing_subscriber::registry().with(filter).with(layer);
                tracing::subscriber::set_global_default(subscriber)
                    .expect("no global subscriber yet");
                Exporter::Peer(provider)
            }
            other => panic!("no exporter named {other:?}"),
        }
    }

    /// The measured call site of this exporter's library.
    pub(crate) fn site(&self) -> fn(u64) {
        match self {
            Exporter::Elide(_) => elide_site,
            Exporter::Peer(_) => peer_site,
        }
    }

    /// The loop callgrind collects inside.
    pub(crate) fn hot(&self) -> fn(u64) {
        match self {
            Exporter::Elide(_) => hot_elide,
            Exporter::Peer(_) => hot_peer,
        }
    }

    /// Waits until everything emitted so far is sent.
    pub(crate) fn flush(&self) {
        match self {
            Exporter::Elide(_) => elide::flush(),
            // Its flush gives up after a fixed 5 s (the processor goes on
            // exporting): under callgrind, on a loaded machine, a burst
            // takes longer; asked again until it is done.
            Exporter::Peer(p) => {
                for _ in 0..60 {
                    match p.force_flush() {
                        Err(opentelemetry_sdk::error::OTelSdkError::Timeout(_)) => continue,
                        done => return done.expect("peer flush"),
                    }
                }
                panic!("peer flush: not done after 60 tries")
            }
        }
    }

    /// Records the exporter lost (dropped, failed), as far as it says.
    pub(crate) fn lost(&self) -> String {
        match self {
            Exporter::Elide(s) => {
                let st = s.stats();
                format!("dropped {} failed {}", st.dropped, st.failed)
            }
            // The SDK reports drops only through its internal log at shutdown.
            Exporter::Peer(_) => "-".into(),
        }
    }

    /// Stops the exporter, sending what is left.
    pub(crate) fn shutdown(self) {
        match self {
            Exporter::Elide(_) => elide::set_sinks([]),
            Exporter::Peer(p) => p.shutdown().expect("peer shutdown"),
        }
    }
}

#[inline(never)]
fn elide_site(i: u64) {
    let us = (i * 7) as u32;
    elide::info!("task {} done in {} us", i, us);
}

#[inline(never)]
fn peer_site(i: u64) {
    let us = (i * 7) as u32;
    tracing::info!("task {} done in {} us", i, us);
}

#[inline(never)]
fn hot_elide(n: u64) {
    for i in 0..n {
        elide_site(std::hint::black_box(i));
    }
}

#[inline(never)]
fn hot_peer(n: u64) {
    for i in 0..n {
        peer_site(std::hint::black_box(i));
    }
}
