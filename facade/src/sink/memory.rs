//! A sink that keeps records in memory, for tests (yours and ours).

use std::sync::Mutex;
use std::time::SystemTime;

use crate::record::level::{Level, LevelFilter};
use crate::record::metadata::Kind;
pub use crate::record::owned_value::OwnedValue;
use crate::record::Record;
use crate::sink::Sink;

/// An owned copy of a [`Record`], with the message rendered.
#[derive(Clone, Debug, PartialEq)]
pub struct OwnedRecord {
    /// Log, check or telemetry.
    pub kind: Kind,
    /// Level.
    pub level: Level,
    /// Namespace.
    pub target: &'static str,
    /// Module path of the site.
    pub module_path: &'static str,
    /// Source file of the site.
    pub file: &'static str,
    /// Source line of the site.
    pub line: u32,
    /// Event name (telemetry) or condition text (checks).
    pub name: &'static str,
    /// The rendered message.
    pub message: String,
    /// The fields, in site order.
    pub fields: Vec<(&'static str, OwnedValue)>,
    /// Number of the emitting thread.
    pub thread: u64,
    /// Time of the record.
    pub time: SystemTime,
    /// The innermost span the record was emitted in; its `Debug` is the
    /// chain as the compact layout writes it (`outer{a=1}:inner`).
    pub span: Option<std::sync::Arc<crate::record::span_data::SpanData>>,
}

impl OwnedRecord {
    /// Copies a record.
    pub fn from_record(r: &Record<'_>) -> OwnedRecord {
        let meta = r.metadata();
        OwnedRecord {
            kind: r.kind(),
            level: r.level(),
            target: meta.target(),
            module_path: meta.module_path(),
            file: meta.file(),
            line: meta.line(),
            name: meta.name(),
            message: {
                let mut m = String::new();
                r.write_message(&mut m);
                m
            },
            fields: r.fields().iter().map(|(k, v)| (*k, v.into())).collect(),
            thread: r.thread_id(),
            time: r.time(),
            span: r.span_arc().cloned(),
        }
    }

    /// The first field named `name`.
    pub fn field(&self, name: &str) -> Option<&OwnedValue> {
        self.fields.iter().find(|(k, _)| *k == name).map(|(_, v)| v)
    }

    /// Panics unless field `name` exists and displays as `expected` does
    /// (so `3`, `"3"` and a `%` field rendering `3` all match a `3`).
    /// Returns the record, for more assertions (example in
    /// [`testing`](crate::testing)).
    #[track_caller]
    pub fn assert_field(&self, name: &str, expected: impl std::fmt::Display) -> &OwnedRecord {
        let expected = expected.to_string();
        match self.field(name) {
            Some(v) if v.to_string() == expected => self,
            Some(v) => panic!("field {name} is {v:?}, expected {expected:?}, in: {self}"),
            None => panic!("no field {name} (expected {expected:?}) in: {self}"),
        }
    }
}

impl std::fmt::Display for OwnedRecord {
    /// `LEVEL target: message {field=value, ...}` (telemetry: the event
    /// name in place of the level), for test failure messages.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.kind == Kind::Telemetry {
            write!(f, "event {} {}:", self.name, self.target)?;
        } else {
            write!(f, "{} {}: {}", self.level, self.target, self.message)?;
        }
        for (i, (k, v)) in self.fields.iter().enumerate() {
            let open = if i == 0 { " {" } else { ", " };
            write!(f, "{open}{k}={v}")?;
        }
        if !self.fields.is_empty() {
            f.write_str("}")?;
        }
        Ok(())
    }
}

/// Captures records in memory (logs up to its level, and telemetry events).
///
/// ```
/// use std::sync::Arc;
/// use elide::sink::MemorySink;
/// let mem = Arc::new(MemorySink::new());
/// elide::set_sinks([mem.clone() as Arc<dyn elide::Sink>]);
/// elide::set_level(elide::LevelFilter::Debug);
/// elide::debug!(n = 1, "first");
/// let records = mem.take();
/// assert_eq!(records[0].message, "first");
/// assert_eq!(records[0].field("n"), Some(&elide::sink::OwnedValue::I64(1)));
/// ```
#[derive(Debug)]
pub struct MemorySink {
    level: LevelFilter,
    records: Mutex<Vec<OwnedRecord>>,
}

impl MemorySink {
    /// A sink capturing every level.
    pub fn new() -> MemorySink {
        MemorySink {
            level: LevelFilter::Trace,
            records: Mutex::new(Vec::new()),
        }
    }
    /// Sets the most verbose level captured.
    pub fn with_level(mut self, level: LevelFilter) -> MemorySink {
        self.level = level;
        self
    }
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<OwnedRecord>> {
        self.records.lock().unwrap_or_else(|e| e.into_inner())
    }
    /// A copy of the captured records.
    pub fn records(&self) -> Vec<OwnedRecord> {
        self.lock().clone()
    }
    /// Takes the captured records, leaving the sink empty.
    pub fn take(&self) -> Vec<OwnedRecord> {
        std::mem::take(&mut *self.lock())
    }
    /// The captured messages.
    pub fn messages(&self) -> Vec<String> {
        self.lock().iter().map(|r| r.message.clone()).collect()
    }
    /// Number of captured records.
    pub fn len(&self) -> usize {
        self.lock().len()
    }
    /// Whether nothing was captured.
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }
    /// Drops the captured records.
    pub fn clear(&self) {
        self.lock().clear()
    }
}

impl Default for MemorySink {
    fn default() -> Self {
        MemorySink::new()
    }
}

impl Sink for MemorySink {
    fn max_level(&self) -> LevelFilter {
        self.level
    }
    fn wants_telemetry(&self) -> bool {
        true
    }
    fn emit(&self, record: &Record<'_>) {
        let owned = OwnedRecord::from_record(record);
        self.lock().push(owned);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::value::Value;

    #[test]
    fn a_memory_sink_counts_and_clears_what_it_holds() {
        let sink = MemorySink::new();
        assert!(sink.is_empty());
        sink.emit(&Record::new(
            &crate::record::metadata::TEST_LOG,
            crate::record::level::Level::Info,
            format_args!("one"),
            &[],
        ));
        assert!(!sink.is_empty());
        assert_eq!(sink.len(), 1);
        sink.clear();
        assert!(sink.is_empty());
        assert_eq!(sink.messages(), Vec::<String>::new());
    }

    #[test]
    fn kept_values_keep_their_kind_and_text() {
        let wide = [Value::I128(-1 << 100), Value::U128(u128::MAX)];
        for v in wide {
            let kept = OwnedValue::from(&v);
            assert_eq!(format!("{:?}", kept.as_value()), format!("{v:?}"));
        }
        assert_eq!(
            OwnedValue::from(&Value::I128(-1 << 100)),
            OwnedValue::I128(-1 << 100)
        );
        assert_eq!(
            OwnedValue::from(&Value::U128(u128::MAX)),
            OwnedValue::U128(u128::MAX)
        );
        // Debug text prints as rendered, not quoted again.
        let kept = OwnedValue::from(&Value::Debug(&"a\"b"));
        assert_eq!(kept, OwnedValue::Debug("\"a\\\"b\"".to_owned()));
        assert_eq!(format!("{:?}", kept.as_value()), "\"a\\\"b\"");
    }
}
