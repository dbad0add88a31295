//! Records to OTLP messages: log records, telemetry events, scope spans and
//! counter samples.

use std::time::{SystemTime, UNIX_EPOCH};

use opentelemetry_proto::tonic::common::v1::{
    any_value, AnyValue, ArrayValue, KeyValue, KeyValueList,
};
use opentelemetry_proto::tonic::logs::v1::LogRecord;
use opentelemetry_proto::tonic::trace::v1::{span, Span};

use crate::metadata::Kind;
use crate::record::Record;
use crate::scope_names::{
    DURATION_FIELD, PARENT_FIELD, SCOPE_FIELD, START_SUFFIX, STOP_SUFFIX, TRACE_FIELD,
};
use crate::trace_ids;
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
        self.0 = Some(any_value::Value::StringValue(crate::format::otlp_string(
            format!("{v:?}"),
        )));
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

/// The record's span chain as the attribute `spans`, as the JSON layout
/// writes it: an array, outermost first, of `{name, fields: {..}}`.
fn span_chain(r: &Record<'_>) -> Option<KeyValue> {
    let chain = r.span()?.chain();
    let spans = chain.into_iter().map(|s| {
        let fields = s
            .fields()
            .iter()
            .map(|(k, v)| kv(k, any(&v.as_value())))
            .collect();
        AnyValue {
            value: Some(any_value::Value::KvlistValue(KeyValueList {
                values: vec![
                    kv("name", string(s.name())),
                    kv(
                        "fields",
                        Some(AnyValue {
                            value: Some(any_value::Value::KvlistValue(KeyValueList {
                                values: fields,
                            })),
                        }),
                    ),
                ],
            })),
        }
    });
    Some(kv(
        "spans",
        Some(AnyValue {
            value: Some(any_value::Value::ArrayValue(ArrayValue {
                values: spans.collect(),
            })),
        }),
    ))
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
        trace_ids::span_id(self.salt, id).to_vec()
    }
    fn trace(self, root: u64) -> Vec<u8> {
        trace_ids::trace_id(self.salt, root).to_vec()
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
    // The span it was emitted in: the ids its span is exported with.
    let (trace_id, span_id) = match r.scope_ids() {
        Some((id, trace)) => (ids.trace(trace), ids.span(id)),
        None => (Vec::new(), Vec::new()),
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
            attributes: {
                let mut a = attributes(r, &[]);
                a.extend(span_chain(r));
                a
            },
            event_name,
            trace_id,
            span_id,
            ..Default::default()
        },
    )
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, SystemTime, UNIX_EPOCH};

    use opentelemetry_proto::tonic::common::v1::{
        any_value, AnyValue, ArrayValue, KeyValue, KeyValueList,
    };
    use opentelemetry_proto::tonic::trace::v1::span;

    use super::{convert, Ids, Item};
    use crate::metadata::{Kind, Metadata};
    use crate::record::Record;
    use crate::value::{Field, Value};
    use crate::Level;

    static LOG: Metadata = Metadata::new(
        Kind::Log,
        Level::Info,
        "app::db",
        "app::db",
        "src/db.rs",
        42,
        "",
    );
    static CHECK: Metadata = Metadata::new(
        Kind::Check,
        Level::Debug,
        "app",
        "app",
        "src/a.rs",
        7,
        "n > 0",
    );
    static EVENT: Metadata = Metadata::new(
        Kind::Telemetry,
        Level::Info,
        "app",
        "app",
        "src/a.rs",
        9,
        "task.state",
    );
    static START: Metadata = Metadata::new(
        Kind::Telemetry,
        Level::Info,
        "app",
        "app",
        "src/a.rs",
        10,
        "stage_start",
    );
    static STOP: Metadata = Metadata::new(
        Kind::Telemetry,
        Level::Info,
        "app",
        "app",
        "src/a.rs",
        10,
        "stage_stop",
    );

    const IDS: Ids = Ids {
        salt: 0x0123_4567_89ab_cdef,
    };
    /// A record's time, in Unix nanoseconds.
    const AT: u64 = 1_700_000_000_000_000_007;

    fn at() -> SystemTime {
        UNIX_EPOCH + Duration::from_nanos(AT)
    }

    fn value(v: any_value::Value) -> Option<AnyValue> {
        Some(AnyValue { value: Some(v) })
    }
    fn s(text: &str) -> Option<AnyValue> {
        value(any_value::Value::StringValue(text.to_owned()))
    }
    fn i(n: i64) -> Option<AnyValue> {
        value(any_value::Value::IntValue(n))
    }
    fn attrs(pairs: Vec<(&str, Option<AnyValue>)>) -> Vec<KeyValue> {
        pairs
            .into_iter()
            .map(|(k, value)| KeyValue {
                key: k.to_owned(),
                value,
                ..Default::default()
            })
            .collect()
    }
    /// Thread 77 ("w1") and the site's code location.
    fn tail(meta: &Metadata) -> Vec<(&'static str, Option<AnyValue>)> {
        vec![
            ("thread.id", i(77)),
            ("thread.name", s("w1")),
            ("code.namespace", s(meta.module_path())),
            ("code.filepath", s(meta.file())),
            ("code.lineno", i(i64::from(meta.line()))),
        ]
    }

    fn record<'a>(meta: &'static Metadata, level: Level, fields: &'a [Field<'a>]) -> Record<'a> {
        Record::new(meta, level, format_args!("hello 1"), fields)
            .with_time(at())
            .with_thread(77)
            .with_thread_name("w1")
    }

    /// A record in spans carries the chain as the attribute `spans`,
    /// outermost first, each span's fields apart from the record's.
    #[test]
    fn a_log_record_in_spans_carries_the_chain() {
        use crate::span_data::SpanData;
        use std::sync::Arc;
        static META: Metadata = Metadata::new(Kind::Log, Level::Info, "app", "app", "a.rs", 3, "");
        let outer = Arc::new(SpanData::new(
            "outer",
            "app",
            Level::Info,
            &[("b", Value::U64(1))],
            None,
        ));
        let inner = SpanData::new(
            "inner",
            "app",
            Level::Info,
            &[("b", Value::U64(2))],
            Some(outer),
        );
        let fields = [("b", Value::U64(3))];
        let r = record(&META, Level::Info, &fields).with_span(Some(Arc::new(inner)));
        let Item::Log(_, l) = convert(&r, Ids { salt: 1 }) else {
            panic!("a log record")
        };
        let span = |name: &str, b: i64| {
            value(any_value::Value::KvlistValue(KeyValueList {
                values: attrs(vec![
                    ("name", s(name)),
                    (
                        "fields",
                        value(any_value::Value::KvlistValue(KeyValueList {
                            values: attrs(vec![("b", i(b))]),
                        })),
                    ),
                ]),
            }))
            .unwrap()
        };
        let mut want = vec![("b", i(3))];
        want.extend(tail(&META));
        want.push((
            "spans",
            value(any_value::Value::ArrayValue(ArrayValue {
                values: vec![span("outer", 1), span("inner", 2)],
            })),
        ));
        assert_eq!(l.attributes, attrs(want));
    }

    /// A log record: level, message, the caller's time, typed fields
    /// (integers stay integers while they fit an `i64`), thread and code
    /// location; the target is the instrumentation scope.
    #[test]
    fn a_log_record_keeps_its_level_message_time_and_typed_fields() {
        let fields: [Field<'_>; 11] = [
            ("n", Value::I64(-3)),
            ("small", Value::U64(7)),
            ("big", Value::U64(u64::MAX)),
            ("i128", Value::I128(-5)),
            ("i128_big", Value::I128(i128::MIN)),
            ("u128", Value::U128(6)),
            ("u128_big", Value::U128(u128::MAX)),
            ("ratio", Value::F64(0.5)),
            ("ok", Value::Bool(true)),
            ("who", Value::Display(&"ann")),
            ("dbg", Value::Debug(&"x")),
        ];
        let before = super::nanos(SystemTime::now());
        let Item::Log(target, l) = convert(&record(&LOG, Level::Warn, &fields), IDS) else {
            panic!("a log record becomes a log record")
        };
        assert_eq!(target, "app::db");
        assert_eq!(l.time_unix_nano, AT);
        assert!(l.observed_time_unix_nano >= before, "observed now");
        assert_eq!((l.severity_number, l.severity_text.as_str()), (13, "WARN"));
        assert_eq!(l.body, s("hello 1"));
        assert_eq!(l.event_name, "");
        let mut want = vec![
            ("n", i(-3)),
            ("small", i(7)),
            ("big", s(&u64::MAX.to_string())),
            ("i128", i(-5)),
            ("i128_big", s(&i128::MIN.to_string())),
            ("u128", i(6)),
            ("u128_big", s(&u128::MAX.to_string())),
            ("ratio", value(any_value::Value::DoubleValue(0.5))),
            ("ok", value(any_value::Value::BoolValue(true))),
            ("who", s("ann")),
            ("dbg", s("x")),
        ];
        want.extend(tail(&LOG));
        assert_eq!(l.attributes, attrs(want));
    }

    /// OTLP severity numbers and texts of the five levels; a failed check
    /// is an error whatever its site's level.
    #[test]
    fn levels_map_to_otlp_severities_and_checks_are_errors() {
        for (level, want) in [
            (Level::Error, (17, "ERROR")),
            (Level::Warn, (13, "WARN")),
            (Level::Info, (9, "INFO")),
            (Level::Debug, (5, "DEBUG")),
            (Level::Trace, (1, "TRACE")),
        ] {
            let Item::Log(_, l) = convert(&record(&LOG, level, &[]), IDS) else {
                panic!("a log record")
            };
            assert_eq!((l.severity_number, l.severity_text.as_str()), want);
        }
        let Item::Log(_, l) = convert(&record(&CHECK, Level::Debug, &[]), IDS) else {
            panic!("a log record")
        };
        assert_eq!((l.severity_number, l.severity_text.as_str()), (17, "ERROR"));
        assert_eq!(l.event_name, "", "only telemetry events are named");
    }

    /// A telemetry event is a log record named by its event.
    #[test]
    fn a_telemetry_event_is_a_named_log_record() {
        let fields: [Field<'_>; 1] = [("state", Value::Str("DONE"))];
        let Item::Log(target, l) = convert(&record(&EVENT, Level::Info, &fields), IDS) else {
            panic!("a log record")
        };
        assert_eq!((target, l.event_name.as_str()), ("app", "task.state"));
        assert_eq!((l.severity_number, l.time_unix_nano), (9, AT));
    }

    /// `user = ?name` of a string is the string, as in the text layouts;
    /// other Debug text stays as it is.
    #[test]
    fn a_debug_string_is_the_string() {
        let (name, opt) = ("alice", Some("x"));
        let fields: [Field<'_>; 2] = [("user", Value::Debug(&name)), ("opt", Value::Debug(&opt))];
        let Item::Log(_, l) = convert(&record(&LOG, Level::Info, &fields), IDS) else {
            panic!("a log record")
        };
        let text = |i: usize| match &l.attributes[i].value {
            Some(AnyValue {
                value: Some(any_value::Value::StringValue(s)),
            }) => s.clone(),
            other => panic!("{other:?}"),
        };
        let find = |key: &str| l.attributes.iter().position(|a| a.key == key).unwrap();
        assert_eq!(text(find("user")), "alice");
        assert_eq!(text(find("opt")), "Some(\"x\")");
    }

    /// A scope's stop event is its span: ids from the scope, parent and
    /// root ids (salted), start = end - duration, its other fields as
    /// attributes; the start event adds nothing.
    #[test]
    fn a_scope_becomes_a_span_at_its_stop_event() {
        let start: [Field<'_>; 1] = [("scope", Value::U64(5))];
        assert!(matches!(
            convert(&record(&START, Level::Info, &start), IDS),
            Item::Skip
        ));
        let stop: [Field<'_>; 5] = [
            ("scope", Value::U64(5)),
            ("parent", Value::U64(3)),
            ("trace", Value::U64(1)),
            ("duration_ns", Value::U64(2_000)),
            ("uid", Value::Str("task.000001")),
        ];
        let Item::Span(target, sp) = convert(&record(&STOP, Level::Info, &stop), IDS) else {
            panic!("a span")
        };
        assert_eq!(target, "app");
        assert_eq!(sp.name, "stage");
        assert_eq!(sp.kind, span::SpanKind::Internal as i32);
        assert_eq!(sp.trace_id, IDS.trace(1));
        assert_eq!(sp.span_id, IDS.span(5));
        assert_eq!(sp.parent_span_id, IDS.span(3));
        assert_eq!(
            (sp.start_time_unix_nano, sp.end_time_unix_nano),
            (AT - 2_000, AT)
        );
        let mut want = vec![("uid", s("task.000001"))];
        want.extend(tail(&STOP));
        assert_eq!(sp.attributes, attrs(want));
        // A root scope: its own trace, no parent.
        let root: [Field<'_>; 2] = [("scope", Value::U64(1)), ("duration_ns", Value::U64(9))];
        let Item::Span(_, sp) = convert(&record(&STOP, Level::Info, &root), IDS) else {
            panic!("a span")
        };
        assert_eq!((sp.trace_id, sp.parent_span_id), (IDS.trace(1), vec![]));
    }

    /// Trace ids are the salt then the root's id; span ids are 8 bytes,
    /// distinct for distinct scopes and never all zero (invalid in OTLP).
    #[test]
    fn ids_are_salted_distinct_and_never_zero() {
        let mut want = IDS.salt.to_be_bytes().to_vec();
        want.extend_from_slice(&9u64.to_be_bytes());
        assert_eq!(IDS.trace(9), want);
        let spans: std::collections::HashSet<Vec<u8>> = (1..=1000).map(|id| IDS.span(id)).collect();
        assert_eq!(spans.len(), 1000);
        assert!(spans
            .iter()
            .all(|s| s.len() == 8 && s.iter().any(|b| *b != 0)));
        assert_ne!(IDS.span(IDS.salt), [0; 8]);
        assert_eq!(IDS.span(2), (2 ^ IDS.salt).to_be_bytes());
    }
}
