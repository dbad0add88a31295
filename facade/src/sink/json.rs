//! Telemetry as JSON lines: one object per event, fields typed.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use crate::format::{push_epoch_7, Format, JsonEscaped};
use crate::record::decimal::push_u64;
use crate::record::level::LevelFilter;
use crate::record::Record;
use crate::sink::Sink;

/// Writes each telemetry event as one JSON object on its own line:
///
/// ```text
/// {"time":1718000000.1234567,"event":"task.start","target":"my_app::engine","thread":"main","tid":1,"pid":4242,"fields":{"uid":"task.000001","n":3}}
/// ```
///
/// `time` is epoch seconds (seven decimals), `thread` the thread's name or
/// number (as in [`ProfSink`](super::ProfSink)), `tid` elide's thread
/// number. `fields` keeps the site's fields with their types: integers,
/// floats and booleans as JSON numbers and booleans, everything else
/// (strings, `%x`, `?x`, non-finite floats) as strings. Control characters
/// are escaped, so every line is valid JSON on its own. A repeated field
/// name keeps its last value, as JSON parsers do.
///
/// The file is opened in append mode; [`flush`](Sink::flush) flushes and
/// fsyncs, as does dropping the sink.
#[derive(Debug)]
pub struct JsonSink {
    path: PathBuf,
    file: Mutex<BufWriter<File>>,
}

impl JsonSink {
    /// Opens `path` for appending, creating it and its directory if needed.
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("elide-doc-json-{}", std::process::id()));
    /// use std::sync::Arc;
    /// let sink = elide::sink::JsonSink::open(dir.join("events.jsonl"))?;
    /// elide::add_sink(Arc::new(sink));
    /// elide::set_telemetry(true);
    /// # std::fs::remove_dir_all(&dir).ok();
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn open(path: impl AsRef<Path>) -> io::Result<JsonSink> {
        let path = path.as_ref().to_path_buf();
        let file = crate::sink::open_append(&path)?;
        Ok(JsonSink {
            path,
            file: Mutex::new(BufWriter::with_capacity(64 * 1024, file)),
        })
    }

    /// The file written.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file; `None` in a forked child if a thread of the parent held it
    /// at the fork.
    fn lock(&self) -> Option<MutexGuard<'_, BufWriter<File>>> {
        crate::os::process::lock(&self.file)
    }

    fn report(&self, e: &io::Error) {
        crate::stats::report_write_error(&self.path.display().to_string(), e);
    }

    fn render(record: &Record<'_>, out: &mut String) {
        out.push_str("{\"time\":");
        push_epoch_7(record.time(), out);
        out.push_str(",\"event\":");
        Format::json_str(record.metadata().name(), out);
        out.push_str(",\"target\":");
        Format::json_str(record.target(), out);
        out.push_str(",\"thread\":\"");
        record.write_thread_label(&mut JsonEscaped(out));
        out.push_str("\",\"tid\":");
        push_u64(record.thread_id(), out);
        out.push_str(",\"pid\":");
        push_u64(u64::from(crate::os::process::pid()), out);
        // The scope it was emitted in (none for a scope's own events,
        // which carry their ids as fields).
        if !is_scope_event(record) {
            crate::record::trace_ids::push_json(record.scope_ids(), out);
        }
        out.push_str(",\"fields\":");
        Format::json_fields(record.fields(), out);
        crate::format::span_chain::write_json(record, out);
        out.push_str("}\n");
    }

    fn write_line(&self, line: &str) {
        let Some(mut out) = self.lock() else { return };
        if let Err(e) = out.write_all(line.as_bytes()) {
            self.report(&e);
        }
    }
}

impl Sink for JsonSink {
    fn max_level(&self) -> LevelFilter {
        LevelFilter::Off
    }
    fn wants_telemetry(&self) -> bool {
        true
    }
    fn emit(&self, record: &Record<'_>) {
        crate::format::with_line_buffer(|line| {
            Self::render(record, line);
            self.write_line(line);
        });
    }
    fn flush(&self) {
        let Some(mut out) = self.lock() else { return };
        if let Err(e) = out.flush().and_then(|()| out.get_ref().sync_data()) {
            self.report(&e);
        }
    }
}

impl Drop for JsonSink {
    fn drop(&mut self) {
        self.flush();
    }
}

/// A scope's own start or stop event: its ids are its fields.
fn is_scope_event(record: &Record<'_>) -> bool {
    record
        .field(crate::record::scope_names::SCOPE_FIELD)
        .is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// One event, one JSON object: time to the 100 ns, the event, target,
    /// thread label (its number when unnamed), tid, pid and typed fields.
    #[test]
    fn an_event_is_one_json_object_with_every_key() {
        use crate::record::value::Value;
        let fields = [("uid", Value::Str("task.1\"")), ("n", Value::I64(-3))];
        let r = crate::record::test_event(&fields, Duration::new(1_718_000_000, 123_456_789));
        let mut line = String::new();
        JsonSink::render(&r, &mut line);
        let want = format!(
            "{{\"time\":1718000000.1234567,\"event\":\"task.start\",\"target\":\"t\",\"thread\":\"4\",\
             \"tid\":4,\"pid\":{},\"fields\":{{\"uid\":\"task.1\\\"\",\"n\":-3}}}}\n",
            std::process::id()
        );
        assert_eq!(line, want);
    }

    #[test]
    fn a_failing_telemetry_file_is_counted_as_a_write_error() {
        let Ok(sink) = JsonSink::open("/dev/full") else {
            return; // no /dev/full here
        };
        crate::sink::assert_counts_a_write_error(&sink);
    }
}
