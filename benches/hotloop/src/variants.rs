//! Every variant of the main build: a row, a library, a configuration and
//! a loop. Variants of one row do the same job, so their costs compare.

use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, OnceLock};

use elide::sink::{AsyncSink, FileSink, MemorySink, NullSink};
use elide::telemetry::ProfSink;
use elide::{LevelFilter, Sink};

use crate::child::{no_reset, Variant};
use crate::consumers::{
    buffered_temp_file, temp_log_path, FileLogger, FmtLogger, FmtSink, InfoLogger, MemLogger,
    MemStrings, MemSubscriber, NoopLogger, NoopSubscriber, NullTelemetrySink,
};
use crate::sites::*;
use crate::spdlog_peer::*;

const BARE: &str = "bare loop (opt-level 3, fat LTO)";
const NOTHING: &str = "off: nothing installed";
const OFF_CHEAP: &str = "runtime off, cheap arg";
const OFF_NS: &str = "runtime off, per-namespace rules in use";
const OFF_LAZY: &str = "runtime off, expensive arg, lazy";
const OFF_GUARDED: &str = "runtime off, expensive arg, guarded";
const OFF_EAGER: &str = "runtime off, expensive arg, eager";
const NO_WANT: &str = "enabled, no sink wants the level";
const NULL: &str = "enabled, into a null sink";
const NULL_TEXT: &str = "enabled, no argument (a literal message), into a null sink";
const MEMORY: &str = "enabled, into memory";
const MEMORY_SINK: &str = "enabled, into elide's MemorySink (message, time, thread, fields kept)";
const FORMAT: &str = "enabled, formatted into io::sink";
const FORMAT_RADICAL: &str = "enabled, RADICAL columns into io::sink";
const FORMAT_JSON: &str = "enabled, a JSON line into io::sink (no peer here writes this layout)";
const FILE: &str = "enabled, formatted into a 64 KiB-buffered file";
const SPAN_OFF: &str = "span off (run time), entered";
const CHECK_OFF: &str = "check! off at run time";
const CHECK_ON: &str = "check! on, trivial condition";
const CHECK_EQ_ON: &str = "check_eq! on, trivial condition";
const COUNTER: &str = "counter!";
const COUNTER_REC: &str = "counter!, atomic recorder";
const SAMPLE: &str = "sampled out: sample = 100";
const FIRST: &str = "sampled out: first = 1, spent";
const EVERY: &str = "sampled out: every = 1 s";
const TELEMETRY_OFF: &str = "telemetry! off at run time";
const TELEMETRY_ON: &str = "telemetry! on, into a null sink";
const TELEMETRY_PROF: &str = "telemetry! on, into a .prof file";
const ASYNC: &str = "enabled, async writer thread into io::sink";
const BRIDGE_LOG_OFF: &str = "log::debug! off (elide: through elide's log bridge)";
const BRIDGE_TRACING_OFF: &str = "tracing::debug! off (elide: under elide's layer)";
const BRIDGE_TRACING_SPAN_NS: &str =
    "tracing::debug_span! off in its namespace, another at trace (elide: under elide's layer; tracing: Targets filter)";
const BRIDGE_LOG_NULL: &str = "log::debug! on, into a null sink (elide: bridged)";
const BRIDGE_TRACING_NULL: &str =
    "tracing::debug! on, into a null sink (elide: under elide's layer; tracing: a no-op subscriber)";
const RUNTIME_OFF: &str = "run-time target, off (debug!(target: expr, ..))";
const RUNTIME_NULL: &str = "run-time target, into a null sink (debug!(target: expr, ..))";
const EMIT_OFF: &str = "elide::emit (a function: its fmt::Arguments built before the check), off";
const EMIT_NULL: &str = "elide::emit (a function), into a null sink";

const ELIDE_LEVELS: [LevelFilter; 6] = [
    LevelFilter::Off,
    LevelFilter::Error,
    LevelFilter::Warn,
    LevelFilter::Info,
    LevelFilter::Debug,
    LevelFilter::Trace,
];
const LOG_LEVELS: [log::LevelFilter; 6] = [
    log::LevelFilter::Off,
    log::LevelFilter::Error,
    log::LevelFilter::Warn,
    log::LevelFilter::Info,
    log::LevelFilter::Debug,
    log::LevelFilter::Trace,
];

/// Runs in every child first. It stores every level into every run-time
/// switch at run time, so fat LTO cannot treat a never-written static as a
/// constant and fold a site away (the row would then measure nothing).
pub(crate) fn prelude() {
    // An empty sink set first, so elide never installs its default console sink.
    elide::set_sinks(Vec::<Arc<dyn Sink>>::new());
    for l in ELIDE_LEVELS {
        elide::set_level(l);
    }
    for on in [true, false] {
        elide::set_debug(on);
        elide::set_telemetry(on);
    }
    for l in LOG_LEVELS {
        log::set_max_level(l);
    }
    log::set_max_level(log::LevelFilter::Off);
}

fn elide_with(sink: Arc<dyn Sink>, level: LevelFilter) {
    prelude();
    elide::set_sinks([sink]);
    elide::set_level(level);
}

fn log_with(logger: &'static dyn log::Log, level: log::LevelFilter) {
    prelude();
    log::set_logger(logger).expect("no logger installed yet");
    log::set_max_level(level);
}

fn tracing_with(s: impl tracing::Subscriber + Send + Sync + 'static) {
    prelude();
    tracing::subscriber::set_global_default(s).expect("no subscriber installed yet");
}

fn tracing_fmt(level: tracing::Level) {
    tracing_with(
        tracing_subscriber::fmt()
            .with_max_level(level)
            .with_writer(std::io::sink)
            .finish(),
    );
}

// ---- elide configurations -------------------------------------------------

fn e_nothing() {
    prelude();
    elide::set_level(LevelFilter::Trace);
}
fn e_info_null() {
    elide_with(Arc::new(NullSink::new()), LevelFilter::Info);
}
fn e_ns_rules() {
    elide_with(Arc::new(NullSink::new()), LevelFilter::Trace);
    // The sites (in `elide_benches::sites`) are at Info through the crate's
    // rule; more specific rules exist beside them.
    elide::set_level_for("elide_benches", LevelFilter::Info);
    elide::set_level_for("elide_benches::variants", LevelFilter::Trace);
    elide::set_level_for("elsewhere::db", LevelFilter::Trace);
}
fn e_trace_null_info() {
    elide_with(
        Arc::new(NullSink::new().with_level(LevelFilter::Info)),
        LevelFilter::Trace,
    );
}
fn e_trace_null() {
    elide_with(Arc::new(NullSink::new()), LevelFilter::Trace);
}
static E_MEM: OnceLock<Arc<MemStrings>> = OnceLock::new();
fn e_trace_mem() {
    let mem = E_MEM
        .get_or_init(|| Arc::new(MemStrings(Mutex::new(Vec::new()))))
        .clone();
    elide_with(mem, LevelFilter::Trace);
}
fn e_mem_reset() {
    if let Some(m) = E_MEM.get() {
        m.0.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }
}
static E_MEMORY_SINK: OnceLock<Arc<MemorySink>> = OnceLock::new();
fn e_trace_memory_sink() {
    let mem = E_MEMORY_SINK
        .get_or_init(|| Arc::new(MemorySink::new()))
        .clone();
    elide_with(mem, LevelFilter::Trace);
}
fn e_memory_sink_reset() {
    if let Some(m) = E_MEMORY_SINK.get() {
        m.clear();
    }
}
fn e_info_fmt() {
    elide_with(Arc::new(FmtSink), LevelFilter::Info);
}
/// `Format::Json`: the layout of `LOG_FMT=json`.
fn e_info_json() {
    elide_with(Arc::new(crate::consumers::JsonFmtSink), LevelFilter::Info);
}
fn e_info_file() {
    // elide's file sink: RADICAL lines through a 64 KiB buffer.
    let path = temp_log_path("elide");
    let sink = FileSink::open(&path).expect("open a file in the temp directory");
    let _ = std::fs::remove_file(&path);
    elide_with(Arc::new(sink), LevelFilter::Info);
}
fn e_debug(on: bool) {
    elide_with(Arc::new(NullSink::new()), LevelFilter::Info);
    elide::set_debug(on);
}
fn e_debug_off() {
    e_debug(false)
}
fn e_debug_on() {
    e_debug(true)
}
fn e_telemetry(on: bool) {
    elide_with(Arc::new(NullTelemetrySink), LevelFilter::Info);
    elide::set_telemetry(on);
}
fn e_telemetry_off() {
    e_telemetry(false)
}
fn e_telemetry_on() {
    e_telemetry(true)
}
fn e_telemetry_prof() {
    let dir = std::env::temp_dir().join(format!("elide-bench-{}", std::process::id()));
    let prof = ProfSink::open(&dir, "bench").expect("create .prof in the temp dir");
    elide_with(Arc::new(prof), LevelFilter::Info);
    elide::set_telemetry(true);
}
fn e_info_async() {
    // The caller's share: capture and enqueue; the writer thread formats.
    elide_with(
        Arc::new(
            AsyncSink::builder()
                .level(LevelFilter::Info)
                .build(std::io::sink()),
        ),
        LevelFilter::Info,
    );
    // The writer calibrates the cheap clock over its first 10 ms of rounds;
    // until then records read `SystemTime`. Measure what a program gets
    // after that, whatever the loop's pace (callgrind slows it 50-fold).
    // (With an argument: a second literal-message site would keep LTO from
    // specialising the literal row's cold path, as in the rows before.)
    for i in 0..10 {
        elide::info!("warming up the clock {}", i);
        elide::flush();
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

// ---- bridges --------------------------------------------------------------

fn b_log(level: LevelFilter) {
    elide_with(Arc::new(NullSink::new()), level);
    elide::bridge::log::install().expect("no logger installed yet");
}
fn b_log_info() {
    b_log(LevelFilter::Info)
}
fn b_log_trace() {
    b_log(LevelFilter::Trace)
}
/// elide's layer with one namespace at trace elsewhere: tracing's global
/// maximum is then trace, and only the per-namespace answer to
/// `register_callsite` keeps the loop's span (namespace `elide_benches`,
/// at Info) from being built.
fn b_tracing_span_ns() {
    use tracing_subscriber::layer::SubscriberExt;
    tracing_with(tracing_subscriber::registry().with(elide::bridge::tracing::layer()));
    elide::set_sinks([Arc::new(NullSink::new()) as Arc<dyn Sink>]);
    elide::set_level(LevelFilter::Info);
    elide::set_level_for("elsewhere", LevelFilter::Trace);
}
/// tracing's own per-target filter with the same rules.
fn t_targets_fmt() {
    use tracing_subscriber::layer::SubscriberExt;
    let targets = tracing_subscriber::filter::Targets::new()
        .with_default(tracing::Level::INFO)
        .with_target("elsewhere", tracing::Level::TRACE);
    tracing_with(
        tracing_subscriber::fmt()
            .with_max_level(tracing::Level::TRACE)
            .with_writer(std::io::sink)
            .finish()
            .with(targets),
    );
}
fn b_tracing_trace() {
    use tracing_subscriber::layer::SubscriberExt;
    tracing_with(tracing_subscriber::registry().with(elide::bridge::tracing::layer()));
    elide::set_sinks([Arc::new(NullSink::new()) as Arc<dyn Sink>]);
    elide::set_level(LevelFilter::Trace);
}
fn b_tracing_info() {
    use tracing_subscriber::layer::SubscriberExt;
    tracing_with(tracing_subscriber::registry().with(elide::bridge::tracing::layer()));
    elide::set_sinks([Arc::new(NullSink::new()) as Arc<dyn Sink>]);
    elide::set_level(LevelFilter::Info);
}

// ---- log configurations ---------------------------------------------------

fn l_nothing() {
    prelude();
}
fn l_info_noop() {
    log_with(&NoopLogger, log::LevelFilter::Info);
}
fn l_trace_info_logger() {
    log_with(&InfoLogger, log::LevelFilter::Trace);
}
fn l_trace_noop() {
    log_with(&NoopLogger, log::LevelFilter::Trace);
}
static L_MEM: MemLogger = MemLogger(Mutex::new(Vec::new()));
fn l_trace_mem() {
    log_with(&L_MEM, log::LevelFilter::Trace);
}
fn l_mem_reset() {
    L_MEM.0.lock().unwrap_or_else(|e| e.into_inner()).clear();
}
fn l_info_fmt() {
    log_with(&FmtLogger, log::LevelFilter::Info);
}
static L_FILE: FileLogger = FileLogger(OnceLock::new());
fn l_info_file() {
    let _ = L_FILE.0.set(Mutex::new(buffered_temp_file("log")));
    log_with(&L_FILE, log::LevelFilter::Info);
}

// ---- tracing configurations -----------------------------------------------

fn t_nothing() {
    prelude();
}
fn t_info_fmt() {
    tracing_fmt(tracing::Level::INFO);
}
fn t_info_async() {
    let (writer, guard) = tracing_appender::non_blocking(std::io::sink());
    // The guard flushes on drop; the child exits without dropping it.
    std::mem::forget(guard);
    tracing_with(
        tracing_subscriber::fmt()
            .with_max_level(tracing::Level::INFO)
            .with_writer(writer)
            .finish(),
    );
}
fn t_info_file() {
    tracing_with(
        tracing_subscriber::fmt()
            .with_max_level(tracing::Level::INFO)
            .with_writer(Mutex::new(buffered_temp_file("tracing")))
            .finish(),
    );
}
fn t_noop() {
    tracing_with(NoopSubscriber);
}
static T_MEM: OnceLock<Arc<MemSubscriber>> = OnceLock::new();
fn t_mem() {
    let s = T_MEM
        .get_or_init(|| Arc::new(MemSubscriber(Mutex::new(Vec::new()))))
        .clone();
    tracing_with(s);
}
fn t_mem_reset() {
    if let Some(s) = T_MEM.get() {
        s.0.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }
}

// ---- metrics --------------------------------------------------------------

/// Hands out one shared atomic for every counter: the cheapest recorder
/// possible (real ones also look the key up).
struct AtomicRecorder(Arc<AtomicU64>);

impl metrics::Recorder for AtomicRecorder {
    fn describe_counter(
        &self,
        _: metrics::KeyName,
        _: Option<metrics::Unit>,
        _: metrics::SharedString,
    ) {
    }
    fn describe_gauge(
        &self,
        _: metrics::KeyName,
        _: Option<metrics::Unit>,
        _: metrics::SharedString,
    ) {
    }
    fn describe_histogram(
        &self,
        _: metrics::KeyName,
        _: Option<metrics::Unit>,
        _: metrics::SharedString,
    ) {
    }
    fn register_counter(&self, _: &metrics::Key, _: &metrics::Metadata<'_>) -> metrics::Counter {
        metrics::Counter::from_arc(self.0.clone())
    }
    fn register_gauge(&self, _: &metrics::Key, _: &metrics::Metadata<'_>) -> metrics::Gauge {
        metrics::Gauge::noop()
    }
    fn register_histogram(
        &self,
        _: &metrics::Key,
        _: &metrics::Metadata<'_>,
    ) -> metrics::Histogram {
        metrics::Histogram::noop()
    }
}

fn m_none() {
    prelude();
}
fn m_atomic() {
    prelude();
    metrics::set_global_recorder(AtomicRecorder(Arc::new(AtomicU64::new(0))))
        .expect("no recorder installed yet");
}

macro_rules! v {
    ($name:literal, $row:expr, $lib:literal, $setup:expr, $run:expr) => {
        v!($name, $row, $lib, $setup, $run, no_reset)
    };
    ($name:literal, $row:expr, $lib:literal, $setup:expr, $run:expr, $reset:expr) => {
        Variant {
            name: $name,
            row: $row,
            lib: $lib,
            setup: $setup,
            run: $run,
            hot: stringify!($run),
            reset: $reset,
        }
    };
}

/// The variants of this build, in table order.
pub static VARIANTS: &[Variant] = &[
    v!("bare", BARE, "-", prelude, hot_bare),
    v!("e-nothing", NOTHING, "elide", e_nothing, hot_elide_debug),
    v!("l-nothing", NOTHING, "log", l_nothing, hot_log_debug),
    v!(
        "t-nothing",
        NOTHING,
        "tracing",
        t_nothing,
        hot_tracing_debug
    ),
    v!(
        "e-off-cheap",
        OFF_CHEAP,
        "elide",
        e_info_null,
        hot_elide_debug
    ),
    v!("l-off-cheap", OFF_CHEAP, "log", l_info_noop, hot_log_debug),
    v!(
        "t-off-cheap",
        OFF_CHEAP,
        "tracing",
        t_info_fmt,
        hot_tracing_debug
    ),
    v!(
        "s-off-cheap",
        OFF_CHEAP,
        "spdlog-rs",
        s_info_null,
        hot_spdlog_debug
    ),
    v!("e-off-ns", OFF_NS, "elide", e_ns_rules, hot_elide_debug),
    v!("e-off-lazy", OFF_LAZY, "elide", e_info_null, hot_elide_lazy),
    v!("l-off-lazy", OFF_LAZY, "log", l_info_noop, hot_log_lazy),
    v!(
        "t-off-lazy",
        OFF_LAZY,
        "tracing",
        t_info_fmt,
        hot_tracing_lazy
    ),
    v!(
        "e-off-guarded",
        OFF_GUARDED,
        "elide",
        e_info_null,
        hot_elide_guarded
    ),
    v!(
        "l-off-guarded",
        OFF_GUARDED,
        "log",
        l_info_noop,
        hot_log_guarded
    ),
    v!(
        "t-off-guarded",
        OFF_GUARDED,
        "tracing",
        t_info_fmt,
        hot_tracing_guarded
    ),
    v!(
        "e-off-eager",
        OFF_EAGER,
        "elide",
        e_info_null,
        hot_elide_eager
    ),
    v!("l-off-eager", OFF_EAGER, "log", l_info_noop, hot_log_eager),
    v!(
        "t-off-eager",
        OFF_EAGER,
        "tracing",
        t_info_fmt,
        hot_tracing_eager
    ),
    v!("e-span-off", SPAN_OFF, "elide", e_info_null, hot_elide_span),
    v!(
        "t-span-off",
        SPAN_OFF,
        "tracing",
        t_info_fmt,
        hot_tracing_span
    ),
    v!(
        "e-no-want",
        NO_WANT,
        "elide",
        e_trace_null_info,
        hot_elide_debug
    ),
    v!(
        "l-no-want",
        NO_WANT,
        "log",
        l_trace_info_logger,
        hot_log_debug
    ),
    v!(
        "t-no-want",
        NO_WANT,
        "tracing",
        t_info_fmt,
        hot_tracing_debug
    ),
    v!(
        "s-no-want",
        NO_WANT,
        "spdlog-rs",
        s_trace_null_info,
        hot_spdlog_debug
    ),
    v!("e-null", NULL, "elide", e_trace_null, hot_elide_debug),
    v!("l-null", NULL, "log", l_trace_noop, hot_log_debug),
    v!("t-null", NULL, "tracing", t_noop, hot_tracing_debug),
    v!("s-null", NULL, "spdlog-rs", s_trace_null, hot_spdlog_debug),
    v!(
        "e-null-text",
        NULL_TEXT,
        "elide",
        e_trace_null,
        hot_elide_debug_text
    ),
    v!(
        "l-null-text",
        NULL_TEXT,
        "log",
        l_trace_noop,
        hot_log_debug_text
    ),
    v!(
        "t-null-text",
        NULL_TEXT,
        "tracing",
        t_noop,
        hot_tracing_debug_text
    ),
    v!(
        "e-memory",
        MEMORY,
        "elide",
        e_trace_mem,
        hot_elide_debug,
        e_mem_reset
    ),
    v!(
        "e-memory-sink",
        MEMORY_SINK,
        "elide",
        e_trace_memory_sink,
        hot_elide_debug,
        e_memory_sink_reset
    ),
    v!(
        "l-memory",
        MEMORY,
        "log",
        l_trace_mem,
        hot_log_debug,
        l_mem_reset
    ),
    v!(
        "t-memory",
        MEMORY,
        "tracing",
        t_mem,
        hot_tracing_debug,
        t_mem_reset
    ),
    v!("e-format", FORMAT, "elide", e_info_fmt, hot_elide_info),
    v!("l-format", FORMAT, "log", l_info_fmt, hot_log_info),
    v!("t-format", FORMAT, "tracing", t_info_fmt, hot_tracing_info),
    v!("s-format", FORMAT, "spdlog-rs", s_info_fmt, hot_spdlog_info),
    v!(
        "e-format-json",
        FORMAT_JSON,
        "elide",
        e_info_json,
        hot_elide_info
    ),
    v!(
        "e-format-radical",
        FORMAT_RADICAL,
        "elide",
        e_info_fmt,
        hot_elide_info
    ),
    v!(
        "s-format-radical",
        FORMAT_RADICAL,
        "spdlog-rs",
        s_info_fmt_radical,
        hot_spdlog_info
    ),
    v!("e-file", FILE, "elide", e_info_file, hot_elide_info),
    v!("l-file", FILE, "log", l_info_file, hot_log_info),
    v!("t-file", FILE, "tracing", t_info_file, hot_tracing_info),
    v!("s-file", FILE, "spdlog-rs", s_info_file, hot_spdlog_info),
    v!("e-async", ASYNC, "elide", e_info_async, hot_elide_info),
    v!("t-async", ASYNC, "tracing", t_info_async, hot_tracing_info),
    v!("s-async", ASYNC, "spdlog-rs", s_info_async, hot_spdlog_info),
    v!(
        "b-log-off",
        BRIDGE_LOG_OFF,
        "elide",
        b_log_info,
        hot_log_debug
    ),
    v!(
        "b-log-off-peer",
        BRIDGE_LOG_OFF,
        "log",
        l_info_noop,
        hot_log_debug
    ),
    v!(
        "b-tracing-off",
        BRIDGE_TRACING_OFF,
        "elide",
        b_tracing_info,
        hot_tracing_debug
    ),
    v!(
        "b-tracing-off-peer",
        BRIDGE_TRACING_OFF,
        "tracing",
        t_info_fmt,
        hot_tracing_debug
    ),
    v!(
        "b-tracing-span-ns",
        BRIDGE_TRACING_SPAN_NS,
        "elide",
        b_tracing_span_ns,
        hot_tracing_span
    ),
    v!(
        "b-tracing-span-ns-peer",
        BRIDGE_TRACING_SPAN_NS,
        "tracing",
        t_targets_fmt,
        hot_tracing_span
    ),
    v!(
        "b-log-null",
        BRIDGE_LOG_NULL,
        "elide",
        b_log_trace,
        hot_log_debug
    ),
    v!(
        "b-log-null-peer",
        BRIDGE_LOG_NULL,
        "log",
        l_trace_noop,
        hot_log_debug
    ),
    v!(
        "b-tracing-null",
        BRIDGE_TRACING_NULL,
        "elide",
        b_tracing_trace,
        hot_tracing_debug
    ),
    v!(
        "b-tracing-null-peer",
        BRIDGE_TRACING_NULL,
        "tracing",
        t_noop,
        hot_tracing_debug
    ),
    v!(
        "e-rt-target-off",
        RUNTIME_OFF,
        "elide",
        e_info_null,
        hot_elide_runtime_target_debug
    ),
    v!(
        "e-emit-off",
        EMIT_OFF,
        "elide",
        e_info_null,
        hot_elide_emit_debug
    ),
    v!(
        "l-rt-target-off",
        RUNTIME_OFF,
        "log",
        l_info_noop,
        hot_log_runtime_target_debug
    ),
    v!(
        "e-rt-target-null",
        RUNTIME_NULL,
        "elide",
        e_trace_null,
        hot_elide_runtime_target_debug
    ),
    v!(
        "e-emit-null",
        EMIT_NULL,
        "elide",
        e_trace_null,
        hot_elide_emit_debug
    ),
    v!(
        "l-rt-target-null",
        RUNTIME_NULL,
        "log",
        l_trace_noop,
        hot_log_runtime_target_debug
    ),
    v!(
        "e-check-off",
        CHECK_OFF,
        "elide",
        e_debug_off,
        hot_elide_check
    ),
    v!("e-check-on", CHECK_ON, "elide", e_debug_on, hot_elide_check),
    v!(
        "e-check-eq-on",
        CHECK_EQ_ON,
        "elide",
        e_debug_on,
        hot_elide_check_eq
    ),
    v!("e-counter", COUNTER, "elide", prelude, hot_elide_counter),
    v!("m-counter", COUNTER, "metrics", m_none, hot_metrics_counter),
    v!(
        "m-counter-rec",
        COUNTER_REC,
        "metrics",
        m_atomic,
        hot_metrics_counter
    ),
    v!("e-sample", SAMPLE, "elide", e_info_null, hot_elide_sample),
    v!("e-first", FIRST, "elide", e_info_null, hot_elide_first),
    v!("e-every", EVERY, "elide", e_info_null, hot_elide_every),
    v!(
        "e-telemetry-off",
        TELEMETRY_OFF,
        "elide",
        e_telemetry_off,
        hot_elide_telemetry
    ),
    v!(
        "e-telemetry-on",
        TELEMETRY_ON,
        "elide",
        e_telemetry_on,
        hot_elide_telemetry
    ),
    v!(
        "e-telemetry-prof",
        TELEMETRY_PROF,
        "elide",
        e_telemetry_prof,
        hot_elide_telemetry
    ),
];
