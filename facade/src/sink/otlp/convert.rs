//! Records to OTLP messages: log records, telemetry events, scope spans and
//! counter samples.

use std::time::{SystemTime, UNIX_EPOCH};

use opentelemetry_proto::tonic::common::v1::{any_value, AnyValue, KeyValue};
use opentelemetry_proto::tonic::logs::v1::LogRecord;
use opentelemetry_proto::tonic::trace::v1::{span, Span};

use crate::metadata::Kind;
use crate::record::Record;
use crate::scope_names::{
    DURATION_FIELD, PARENT_FIELD, SCOPE_FIELD, START_SUFFIX, STOP_SUFFIX, TRACE_FIELD,
};
use crate::value::{Value, Visit};
use crate::Level;

/// What one record becomes.
pub(crate) enum Item {
    /// A log record (logs, check failures, telemetry events), with its
    /// target (the instrumentation scope).
    Log(&'static str, LogRecord),
    /// A closed timed scope.
    Span(&'static str, Span),
    /// A scope's start event: the span is built from the stop event.
    Skip,
}

pub(crate) fn nanos(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

fn severity(level: Level) -> (i32, &'static str) {
    // OTLP SeverityNumber: TRACE=1, DEBUG=5, INFO=9, WARN=13, ERROR=17.
    match level {
        Level::Error => (17, "ERROR"),
        Level::Warn => (13, "WARN"),
        Level::Info => (9, "INFO"),
        Level::Debug => (5, "DEBUG"),
        Level::Trace => (1, "TRACE"),
    }
}

fn string(s: impl Into<String>) -> Option<AnyValue> {
    Some(AnyValue {
        value: Some(any_value::Value::StringValue(s.into())),
    })
}

fn int(n: i64) -> Option<AnyValue> {
    Some(AnyValue {
        value: Some(any_value::Value::IntValue(n)),
    })
}

/// A field value as an OTLP value: integers stay integers while they fit
/// an `i64`, floats and bools keep their kind, everything else is text.
struct ToAny(Option<any_value::Value>);

impl Visit for ToAny {
    fn i64(&mut self, v: i64) {
        self.0 = Some(any_value::Value::IntValue(v));
    }
    fn u64(&mut self, v: u64) {
        self.0 = Some(match i64::try_from(v) {
            Ok(n) => any_value::Value::IntValue(n),
            Err(_) => any_value::Value::StringValue(v.to_string()),
        });
    }
    fn i128(&mut self, v: i128) {
        self.0 = Some(match i64::try_from(v) {
            Ok(n) => any_value::Value::IntValue(n),
            Err(_) => any_value::Value::StringValue(v.to_string()),
        });
    }
    fn u128(&mut self, v: u128) {
        self.0 = Some(match i64::try_from(v) {
            Ok(n) => any_value::Value::IntValue(n),
            Err(_) => any_value::Value::StringValue(v.to_string()),
        });
    }
    fn f64(&mut self, v: f64) {
        self.0 = Some(any_value::Value::DoubleValue(v));
    }
    fn bool(&mut self, v: bool) {
        self.0 = Some(any_value::Value::BoolValue(v));
    }
    fn display(&mut self, v: &dyn std::fmt::Display) {
        self.0 = Some(any_value::Value::StringValue(v.to_string()));
    }
    fn debug(&mut self, v: &dyn std::fmt::Debug) {
        self.0 = Some(any_value::Value::StringValue(format!("{v:?}")));
    }
}

fn any(v: &Value<'_>) -> Option<AnyValue> {
    let mut a = ToAny(None);
    v.visit(&mut a);
    Some(AnyValue { value: a.0 })
}

pub(crate) fn kv(key: &str, value: Option<AnyValue>) -> KeyValue {
    KeyValue {
        key: key.to_owned(),
        value,
        ..Default::default()
    }
}

/// The record's fields, except `skip`, then thread and code location.
fn attributes(r: &Record<'_>, skip: &[&str]) -> Vec<KeyValue> {
    let mut out: Vec<KeyValue> = r
        .fields()
        .iter()
        .filter(|(k, _)| !skip.contains(k))
        .map(|(k, v)| kv(k, any(v)))
        .collect();
    let thread = r.thread();
    out.push(kv(
        "thread.id",
        int(i64::try_from(thread.id).unwrap_or(i64::MAX)),
    ));
    if let Some(name) = thread.name {
        out.push(kv("thread.name", string(name)));
    }
    let m = r.metadata();
    out.push(kv("code.namespace", string(m.module_path())));
    out.push(kv("code.filepath", string(m.file())));
    out.push(kv("code.lineno", int(i64::from(m.line()))));
    out
}

fn u64_field(r: &Record<'_>, name: &str) -> Option<u64> {
    match r.field(name)? {
        Value::U64(n) => Some(n),
        _ => None,
    }
}

/// Span and trace ids: a per-process random salt keeps ids of different
/// processes apart; the scope ids make them unique within the process.
#[derive(Clone, Copy)]
pub(crate) struct Ids {
    pub(crate) salt: u64,
}

impl Ids {
    fn span(self, id: u64) -> Vec<u8> {
        // Never all zero (invalid in OTLP): id >= 1 and the mix is a bijection.
        (id ^ self.salt).max(1).to_be_bytes().to_vec()
    }
    fn trace(self, root: u64) -> Vec<u8> {
        let mut t = Vec::with_capacity(16);
        t.extend_from_slice(&self.salt.to_be_bytes());
        t.extend_from_slice(&root.to_be_bytes());
        t
    }
}

/// Converts one record.
pub(crate) fn convert(r: &Record<'_>, ids: Ids) -> Item {
    let m = r.metadata();
    if m.kind() == Kind::Telemetry {
        if let Some(id) = u64_field(r, SCOPE_FIELD) {
            if m.name().ends_with(START_SUFFIX) {
                return Item::Skip;
            }
            if let (Some(name), Some(ns)) = (
                m.name().strip_suffix(STOP_SUFFIX),
                u64_field(r, DURATION_FIELD),
            ) {
                let end = nanos(r.time());
                let trace = u64_field(r, TRACE_FIELD).unwrap_or(id);
                let parent = u64_field(r, PARENT_FIELD).map(|p| ids.span(p));
                let skip = [SCOPE_FIELD, PARENT_FIELD, TRACE_FIELD, DURATION_FIELD];
                return Item::Span(
                    m.target(),
                    Span {
                        trace_id: ids.trace(trace),
                        span_id: ids.span(id),
                        parent_span_id: parent.unwrap_or_default(),
                        name: name.to_owned(),
                        kind: span::SpanKind::Internal as i32,
                        start_time_unix_nano: end.saturating_sub(ns),
                        end_time_unix_nano: end,
                        attributes: attributes(r, &skip),
                        ..Default::default()
                    },
                );
            }
        }
    }
    let (number, text) = match m.kind() {
        Kind::Check => (17, "ERROR"),
        _ => severity(r.level()),
    };
    let event_name = match m.kind() {
        Kind::Telemetry => m.name().to_owned(),
        _ => String::new(),
    };
    Item::Log(
        m.target(),
        LogRecord {
            time_unix_nano: nanos(r.time()),
            observed_time_unix_nano: nanos(SystemTime::now()),
            severity_number: number,
            severity_text: text.to_owned(),
            body: string({
                let mut m = String::new();
                r.write_message(&mut m);
                m
            }),
            attributes: attributes(r, &[]),
            event_name,
            ..Default::default()
        },
    )
}
