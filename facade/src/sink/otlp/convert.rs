//! Records to OTLP messages: log records, telemetry events and scope spans,
//! each encoded once into its protobuf bytes ([`wire`](super::wire)); the
//! exporter puts those bytes into requests as they are.

use std::cell::RefCell;
use std::fmt::Write as _;
use std::time::{SystemTime, UNIX_EPOCH};

use super::wire::{
    self, bytes, fixed64, nested, uint, ANY_ARRAY, ANY_BOOL, ANY_DOUBLE, ANY_INT, ANY_KVLIST,
    ANY_STRING, KV_KEY, KV_VALUE, LIST_VALUES,
};
use crate::record::level::Level;
use crate::record::metadata::Kind;
use crate::record::scope_names::{
    DURATION_FIELD, PARENT_FIELD, SCOPE_FIELD, START_SUFFIX, STOP_SUFFIX, TRACE_FIELD,
};
use crate::record::trace_ids;
use crate::record::value::{Value, Visit};
use crate::record::Record;

/// What one record becomes: its target (the instrumentation scope) and
/// its encoded message.
pub(crate) enum Item {
    /// A `LogRecord` (logs, check failures, telemetry events).
    Log(&'static str, Vec<u8>),
    /// A `Span`: a closed timed scope.
    Span(&'static str, Vec<u8>),
    /// A scope's start event: the span is built from the stop event.
    Skip,
}

/// The attributes sent with every record beyond its fields, off by
/// default: they repeat on every record what the backend mostly does not
/// need ([`OtlpSinkBuilder::code_attributes`](super::OtlpSinkBuilder::code_attributes),
/// [`thread_attributes`](super::OtlpSinkBuilder::thread_attributes)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Extra {
    /// `code.namespace`, `code.filepath`, `code.lineno`.
    pub(crate) code: bool,
    /// `thread.id`, `thread.name`.
    pub(crate) thread: bool,
}

// `LogRecord`'s fields.
const LOG_TIME: u8 = 1;
const LOG_SEVERITY: u8 = 2;
const LOG_SEVERITY_TEXT: u8 = 3;
const LOG_BODY: u8 = 5;
const LOG_ATTRIBUTES: u8 = 6;
const LOG_TRACE_ID: u8 = 9;
const LOG_SPAN_ID: u8 = 10;
const LOG_OBSERVED_TIME: u8 = 11;
const LOG_EVENT_NAME: u8 = 12;
// `Span`'s.
const SPAN_TRACE_ID: u8 = 1;
const SPAN_ID: u8 = 2;
const SPAN_PARENT_ID: u8 = 4;
const SPAN_NAME: u8 = 5;
const SPAN_KIND: u8 = 6;
const SPAN_START: u8 = 7;
const SPAN_END: u8 = 8;
const SPAN_ATTRIBUTES: u8 = 9;
/// `SpanKind::Internal`.
const KIND_INTERNAL: u64 = 1;

pub(crate) fn nanos(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

/// Writes a field value as the content of an OTLP `AnyValue`: integers
/// stay integers while they fit an `i64`, floats and bools keep their
/// kind, everything else is text.
struct AnyOut<'a>(&'a mut Vec<u8>);

impl AnyOut<'_> {
    fn int_or_text(&mut self, n: Option<i64>, text: &dyn std::fmt::Display) {
        match n {
            Some(n) => uint(self.0, ANY_INT, n as u64),
            None => self.display(text),
        }
    }
}

impl Visit for AnyOut<'_> {
    fn i64(&mut self, v: i64) {
        uint(self.0, ANY_INT, v as u64);
    }
    fn u64(&mut self, v: u64) {
        self.int_or_text(i64::try_from(v).ok(), &v);
    }
    fn i128(&mut self, v: i128) {
        self.int_or_text(i64::try_from(v).ok(), &v);
    }
    fn u128(&mut self, v: u128) {
        self.int_or_text(i64::try_from(v).ok(), &v);
    }
    fn f64(&mut self, v: f64) {
        fixed64(self.0, ANY_DOUBLE, v.to_bits());
    }
    fn bool(&mut self, v: bool) {
        uint(self.0, ANY_BOOL, u64::from(v));
    }
    fn str(&mut self, v: &str) {
        bytes(self.0, ANY_STRING, v.as_bytes());
    }
    fn display(&mut self, v: &dyn std::fmt::Display) {
        nested(self.0, ANY_STRING, |b| {
            let _ = write!(wire::Text(b), "{v}");
        });
    }
    fn debug(&mut self, v: &dyn std::fmt::Debug) {
        let text = crate::format::otlp_string(format!("{v:?}"));
        bytes(self.0, ANY_STRING, text.as_bytes());
    }
}

/// A `KeyValue` field: `k` and the value `v`.
pub(crate) fn kv(b: &mut Vec<u8>, field: u8, k: &str, v: &Value<'_>) {
    nested(b, field, |b| {
        bytes(b, KV_KEY, k.as_bytes());
        nested(b, KV_VALUE, |b| v.visit(&mut AnyOut(b)));
    });
}

/// The record's fields, except `skip`, then the extra attributes asked
/// for, as `field`s of `KeyValue`.
fn attributes(b: &mut Vec<u8>, field: u8, r: &Record<'_>, skip: &[&str], extra: Extra) {
    for (k, v) in r.fields() {
        if !skip.contains(k) {
            kv(b, field, k, v);
        }
    }
    if extra.thread {
        let thread = r.thread();
        let id = i64::try_from(thread.id).unwrap_or(i64::MAX);
        kv(b, field, "thread.id", &Value::I64(id));
        if let Some(name) = &thread.name {
            kv(b, field, "thread.name", &Value::Str(name));
        }
    }
    if extra.code {
        let m = r.metadata();
        kv(b, field, "code.namespace", &Value::Str(m.module_path()));
        kv(b, field, "code.filepath", &Value::Str(m.file()));
        kv(b, field, "code.lineno", &Value::I64(i64::from(m.line())));
    }
}

/// The record's span chain as the attribute `spans`, as the JSON layout
/// writes it: an array, outermost first, of `{name, fields: {..}}`.
fn span_chain(b: &mut Vec<u8>, r: &Record<'_>) {
    let Some(span) = r.span() else { return };
    let chain = span.chain();
    nested(b, LOG_ATTRIBUTES, |b| {
        bytes(b, KV_KEY, b"spans");
        nested(b, KV_VALUE, |b| {
            nested(b, ANY_ARRAY, |b| {
                for s in chain {
                    nested(b, LIST_VALUES, |b| {
                        nested(b, ANY_KVLIST, |b| {
                            kv(b, LIST_VALUES, "name", &Value::Str(s.name()));
                            nested(b, LIST_VALUES, |b| {
                                bytes(b, KV_KEY, b"fields");
                                nested(b, KV_VALUE, |b| {
                                    nested(b, ANY_KVLIST, |b| {
                                        for (k, v) in s.fields() {
                                            kv(b, LIST_VALUES, k, &v.as_value());
                                        }
                                    });
                                });
                            });
                        });
                    });
                }
            });
        });
    });
}

fn u64_field(r: &Record<'_>, name: &str) -> Option<u64> {
    match r.field(name)? {
        Value::U64(n) => Some(n),
        _ => None,
    }
}

/// The record's message, rendered into a buffer the (writer) thread
/// keeps, handed to `f`.
fn with_message<R>(r: &Record<'_>, f: impl FnOnce(&str) -> R) -> R {
    thread_local! {
        static TEXT: RefCell<String> = const { RefCell::new(String::new()) };
    }
    if let Some(s) = r.args().as_str() {
        return f(s);
    }
    TEXT.with(|t| match t.try_borrow_mut() {
        Ok(mut text) => {
            text.clear();
            r.write_message(&mut text);
            let out = f(&text);
            if text.capacity() > 1 << 16 {
                *text = String::new();
            }
            out
        }
        // A message whose value logs from its `Display`.
        Err(_) => {
            let mut text = String::new();
            r.write_message(&mut text);
            f(&text)
        }
    })
}

/// Converts one record. Span and trace ids are the scope ids mixed with
/// `salt`, the process's random salt ([`trace_ids`]).
pub(crate) fn convert(r: &Record<'_>, salt: u64, extra: Extra) -> Item {
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
                let mut b = Vec::with_capacity(96 + 32 * r.fields().len());
                bytes(&mut b, SPAN_TRACE_ID, &trace_ids::trace_id(salt, trace));
                bytes(&mut b, SPAN_ID, &trace_ids::span_id(salt, id));
                if let Some(p) = u64_field(r, PARENT_FIELD) {
                    bytes(&mut b, SPAN_PARENT_ID, &trace_ids::span_id(salt, p));
                }
                bytes(&mut b, SPAN_NAME, name.as_bytes());
                uint(&mut b, SPAN_KIND, KIND_INTERNAL);
                fixed64(&mut b, SPAN_START, end.saturating_sub(ns));
                fixed64(&mut b, SPAN_END, end);
                let skip = [SCOPE_FIELD, PARENT_FIELD, TRACE_FIELD, DURATION_FIELD];
                attributes(&mut b, SPAN_ATTRIBUTES, r, &skip, extra);
                return Item::Span(m.target(), b);
            }
        }
    }
    // OTLP SeverityNumber: TRACE=1, DEBUG=5, INFO=9, WARN=13, ERROR=17.
    let (number, text) = match (m.kind(), r.level()) {
        (Kind::Check, _) | (_, Level::Error) => (17, "ERROR"),
        (_, Level::Warn) => (13, "WARN"),
        (_, Level::Info) => (9, "INFO"),
        (_, Level::Debug) => (5, "DEBUG"),
        (_, Level::Trace) => (1, "TRACE"),
    };
    let mut b = Vec::with_capacity(96 + 32 * r.fields().len());
    // The caller's time is when the record was made, and also when
    // OpenTelemetry first saw it (the observed time, as the data model
    // has it for records that start in an OpenTelemetry API).
    let time = nanos(r.time());
    fixed64(&mut b, LOG_TIME, time);
    fixed64(&mut b, LOG_OBSERVED_TIME, time);
    uint(&mut b, LOG_SEVERITY, number);
    bytes(&mut b, LOG_SEVERITY_TEXT, text.as_bytes());
    with_message(r, |message| {
        nested(&mut b, LOG_BODY, |b| {
            bytes(b, ANY_STRING, message.as_bytes())
        });
    });
    attributes(&mut b, LOG_ATTRIBUTES, r, &[], extra);
    span_chain(&mut b, r);
    // The span it was emitted in: the ids its span is exported with.
    if let Some((id, trace)) = r.scope_ids() {
        bytes(&mut b, LOG_TRACE_ID, &trace_ids::trace_id(salt, trace));
        bytes(&mut b, LOG_SPAN_ID, &trace_ids::span_id(salt, id));
    }
    if m.kind() == Kind::Telemetry {
        bytes(&mut b, LOG_EVENT_NAME, m.name().as_bytes());
    }
    Item::Log(m.target(), b)
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, SystemTime, UNIX_EPOCH};

    use opentelemetry_proto::tonic::common::v1::{
        any_value, AnyValue, ArrayValue, KeyValue, KeyValueList,
    };
    use opentelemetry_proto::tonic::logs::v1::LogRecord;
    use opentelemetry_proto::tonic::trace::v1::{span, Span};
    use prost::Message;

    use super::{convert, Extra, Item};
    use crate::record::level::Level;
    use crate::record::metadata::{Kind, Metadata};
    use crate::record::value::{Field, Value};
    use crate::record::Record;

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

    const SALT: u64 = 0x0123_4567_89ab_cdef;
    /// The ids `convert` writes (the tests' shorthand).
    fn span_id(id: u64) -> [u8; 8] {
        crate::record::trace_ids::span_id(SALT, id)
    }
    fn trace_id(root: u64) -> [u8; 16] {
        crate::record::trace_ids::trace_id(SALT, root)
    }
    /// Thread and code attributes on.
    const ALL: Extra = Extra {
        code: true,
        thread: true,
    };

    /// A log record's target and its bytes decoded with the official types.
    fn log(item: Item) -> (&'static str, LogRecord) {
        match item {
            Item::Log(target, b) => (target, LogRecord::decode(&b[..]).expect("a LogRecord")),
            _ => panic!("a log record"),
        }
    }

    /// [`log`] for spans.
    fn span_of(item: Item) -> (&'static str, Span) {
        match item {
            Item::Span(target, b) => (target, Span::decode(&b[..]).expect("a Span")),
            _ => panic!("a span"),
        }
    }
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
        static META: Metadata = Metadata::new(Kind::Log, Level::Info, "app", "app", "a.rs", 3, "");
        let (_, inner) = crate::record::span_data::test_chain(&[("b", Value::U64(2))]);
        let fields = [("b", Value::U64(3))];
        let r = record(&META, Level::Info, &fields).with_span(Some(inner));
        let (_, l) = log(convert(&r, 1, ALL));
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
        let (target, l) = log(convert(&record(&LOG, Level::Warn, &fields), SALT, ALL));
        assert_eq!(target, "app::db");
        assert_eq!(l.time_unix_nano, AT);
        assert_eq!(l.observed_time_unix_nano, AT, "observed when made");
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

    /// By default a record carries its fields only: no thread or code
    /// attributes (each option adds its own), and nothing else changes.
    #[test]
    fn thread_and_code_attributes_are_opt_in() {
        let fields: [Field<'_>; 1] = [("n", Value::I64(1))];
        let r = record(&LOG, Level::Info, &fields);
        let keys = |extra| {
            let (_, l) = log(convert(&r, SALT, extra));
            let keys: Vec<String> = l.attributes.into_iter().map(|a| a.key).collect();
            keys
        };
        assert_eq!(keys(Extra::default()), ["n"]);
        let thread = Extra {
            thread: true,
            code: false,
        };
        assert_eq!(keys(thread), ["n", "thread.id", "thread.name"]);
        let code = Extra {
            thread: false,
            code: true,
        };
        assert_eq!(
            keys(code),
            ["n", "code.namespace", "code.filepath", "code.lineno"]
        );
        let (_, all) = log(convert(&r, SALT, ALL));
        let (_, plain) = log(convert(&r, SALT, Extra::default()));
        assert_eq!(
            LogRecord {
                attributes: Vec::new(),
                ..all
            },
            LogRecord {
                attributes: Vec::new(),
                ..plain
            }
        );
    }

    /// A record made inside a scope carries the trace and span ids that
    /// scope's span is exported with; outside any, none.
    #[test]
    fn a_record_in_a_scope_carries_its_spans_ids() {
        let r = record(&LOG, Level::Info, &[]).with_scope_if(Some((5, 1)));
        let (_, l) = log(convert(&r, SALT, Extra::default()));
        assert_eq!(
            (l.trace_id, l.span_id),
            (trace_id(1).to_vec(), span_id(5).to_vec())
        );
        let (_, l) = log(convert(
            &record(&LOG, Level::Info, &[]),
            SALT,
            Extra::default(),
        ));
        assert!(l.trace_id.is_empty() && l.span_id.is_empty());
    }

    /// A long message and long values (128 bytes and more: longer length
    /// prefixes) arrive whole.
    #[test]
    fn long_messages_and_values_arrive_whole() {
        static LONG: Metadata = Metadata::new(Kind::Log, Level::Info, "app", "app", "a.rs", 1, "");
        let long = "y".repeat(1000);
        let fields: [Field<'_>; 2] = [
            ("text", Value::Display(&long)),
            ("n", Value::U64(u64::from(u32::MAX))),
        ];
        let (_, l) = log(convert(
            &Record::new(&LONG, Level::Info, format_args!("{long}"), &fields).with_time(at()),
            SALT,
            Extra::default(),
        ));
        assert_eq!(l.body, s(&long));
        assert_eq!(
            l.attributes,
            attrs(vec![("text", s(&long)), ("n", i(i64::from(u32::MAX)))])
        );
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
            let (_, l) = log(convert(&record(&LOG, level, &[]), SALT, ALL));
            assert_eq!((l.severity_number, l.severity_text.as_str()), want);
        }
        let (_, l) = log(convert(&record(&CHECK, Level::Debug, &[]), SALT, ALL));
        assert_eq!((l.severity_number, l.severity_text.as_str()), (17, "ERROR"));
        assert_eq!(l.event_name, "", "only telemetry events are named");
    }

    /// A telemetry event is a log record named by its event.
    #[test]
    fn a_telemetry_event_is_a_named_log_record() {
        let fields: [Field<'_>; 1] = [("state", Value::Str("DONE"))];
        let (target, l) = log(convert(&record(&EVENT, Level::Info, &fields), SALT, ALL));
        assert_eq!((target, l.event_name.as_str()), ("app", "task.state"));
        assert_eq!((l.severity_number, l.time_unix_nano), (9, AT));
    }

    /// `user = ?name` of a string is the string, as in the text layouts;
    /// other Debug text stays as it is.
    #[test]
    fn a_debug_string_is_the_string() {
        let (name, opt) = ("alice", Some("x"));
        let fields: [Field<'_>; 2] = [("user", Value::Debug(&name)), ("opt", Value::Debug(&opt))];
        let (_, l) = log(convert(&record(&LOG, Level::Info, &fields), SALT, ALL));
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
            convert(&record(&START, Level::Info, &start), SALT, ALL),
            Item::Skip
        ));
        let stop: [Field<'_>; 5] = [
            ("scope", Value::U64(5)),
            ("parent", Value::U64(3)),
            ("trace", Value::U64(1)),
            ("duration_ns", Value::U64(2_000)),
            ("uid", Value::Str("task.000001")),
        ];
        let (target, sp) = span_of(convert(&record(&STOP, Level::Info, &stop), SALT, ALL));
        assert_eq!(target, "app");
        assert_eq!(sp.name, "stage");
        assert_eq!(sp.kind, span::SpanKind::Internal as i32);
        assert_eq!(sp.trace_id, trace_id(1));
        assert_eq!(sp.span_id, span_id(5));
        assert_eq!(sp.parent_span_id, span_id(3));
        assert_eq!(sp.attributes.len(), 6, "the extra ones asked for");
        let (_, plain) = span_of(convert(
            &record(&STOP, Level::Info, &stop),
            SALT,
            Extra::default(),
        ));
        assert_eq!(plain.attributes, attrs(vec![("uid", s("task.000001"))]));
        assert_eq!(
            (sp.start_time_unix_nano, sp.end_time_unix_nano),
            (AT - 2_000, AT)
        );
        let mut want = vec![("uid", s("task.000001"))];
        want.extend(tail(&STOP));
        assert_eq!(sp.attributes, attrs(want));
        // A root scope: its own trace, no parent.
        let root: [Field<'_>; 2] = [("scope", Value::U64(1)), ("duration_ns", Value::U64(9))];
        let (_, sp) = span_of(convert(&record(&STOP, Level::Info, &root), SALT, ALL));
        assert_eq!(
            (sp.trace_id, sp.parent_span_id),
            (trace_id(1).to_vec(), vec![])
        );
    }

    /// Trace ids are the salt then the root's id; span ids are 8 bytes,
    /// distinct for distinct scopes and never all zero (invalid in OTLP).
    #[test]
    fn ids_are_salted_distinct_and_never_zero() {
        let mut want = SALT.to_be_bytes().to_vec();
        want.extend_from_slice(&9u64.to_be_bytes());
        assert_eq!(trace_id(9).to_vec(), want);
        let spans: std::collections::HashSet<[u8; 8]> = (1..=1000).map(span_id).collect();
        assert_eq!(spans.len(), 1000);
        assert!(spans
            .iter()
            .all(|s| s.len() == 8 && s.iter().any(|b| *b != 0)));
        assert_ne!(span_id(SALT), [0; 8]);
        assert_eq!(span_id(2), (2 ^ SALT).to_be_bytes());
    }
}
