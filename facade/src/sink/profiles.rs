//! What the `.prof` sinks share: the registry of open `.prof` files that
//! [`close`] ends (the last `init` guard, the exit handler), the lazily
//! opened start-up sink of `PROFILE`, and the time and thread columns.
//!
//! Statics owned here: `ENABLED` (the registry).

use std::path::Path;
use std::sync::{Arc, Mutex, Weak};

use crate::sink::{ProfSink, Sink};

/// `.prof` sinks installed by `telemetry::enable` / `enable_prof` and the
/// start-up sink, closed by [`close`].
static ENABLED: Mutex<Vec<Weak<ProfSink>>> = Mutex::new(Vec::new());

/// Registers an open `.prof` sink, so [`close`] ends it.
pub(crate) fn register(sink: &Arc<ProfSink>) {
    if let Some(mut enabled) = crate::os::process::lock(&ENABLED) {
        enabled.push(Arc::downgrade(sink));
    }
}

/// The `.prof` sink for process start-up when the environment turns
/// telemetry on (`PROFILE`): `<dir>/<name>.prof`, with `host` (if given) in
/// its `sync_abs` line. It is returned rather than added, because start-up
/// runs while sites resolve and must hand it to the initial sink set. The
/// file is opened on the first event, so a `PROFILE` variable that no site
/// reads leaves no file behind; once open it is registered so [`close`]
/// ends it. A failure to open gives one warning on stderr naming the
/// directory and the fallback (no `.prof` output).
pub(crate) fn startup_sink(dir: &Path, name: &str, host: Option<String>) -> Arc<dyn Sink> {
    Arc::new(LazyProf {
        dir: dir.to_owned(),
        name: name.to_owned(),
        host,
        sink: std::sync::OnceLock::new(),
    })
}

struct LazyProf {
    dir: std::path::PathBuf,
    name: String,
    host: Option<String>,
    sink: std::sync::OnceLock<Option<Arc<ProfSink>>>,
}

impl LazyProf {
    fn open(&self) -> Option<&Arc<ProfSink>> {
        self.sink
            .get_or_init(|| match ProfSink::open(&self.dir, &self.name) {
                Ok(sink) => {
                    let sink = Arc::new(match &self.host {
                        Some(host) => sink.with_host(host),
                        None => sink,
                    });
                    register(&sink);
                    Some(sink)
                }
                Err(e) => {
                    eprintln!(
                        "elide: cannot open {}/{}.prof for telemetry ({e}); telemetry events will not be written to a .prof file",
                        self.dir.display(),
                        self.name
                    );
                    None
                }
            })
            .as_ref()
    }
}

impl Sink for LazyProf {
    fn max_level(&self) -> crate::record::level::LevelFilter {
        crate::record::level::LevelFilter::Off
    }
    fn wants_telemetry(&self) -> bool {
        true
    }
    fn emit(&self, record: &crate::record::Record<'_>) {
        if let Some(sink) = self.open() {
            sink.emit(record);
        }
    }
    fn flush(&self) {
        if let Some(Some(sink)) = self.sink.get() {
            sink.flush();
        }
    }
}

/// Closes every `.prof` sink installed by
/// [`telemetry::enable`](crate::telemetry::enable) /
/// [`enable_prof`](crate::telemetry::enable_prof):
/// each gets its `END` line, a flush and an fsync. The `init` guard and, on
/// Unix, elide's exit handler call it, so a `.prof` file ends with `END`
/// even though sinks held by the global set are never dropped.
/// Events emitted afterwards to a closed sink are discarded.
pub fn close() {
    let sinks: Vec<_> = match crate::os::process::lock(&ENABLED) {
        Some(mut enabled) => enabled.drain(..).collect(),
        None => return,
    };
    for sink in sinks.iter().filter_map(Weak::upgrade) {
        if let Err(e) = sink.close() {
            crate::stats::report_write_error(&sink.path().display().to_string(), &e);
        }
    }
}

/// The calling thread's label (for the header and `END` lines): its name,
/// or its elide thread number. Records carry their own (`Record::thread`).
pub(crate) fn thread_label(out: &mut impl std::fmt::Write) {
    let _ = match std::thread::current().name() {
        Some(name) => out.write_str(name),
        None => write!(out, "{}", crate::record::thread_number()),
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::metadata::{Kind, Metadata};
    use crate::record::Record;

    static EVENT: Metadata = Metadata::new(
        Kind::Telemetry,
        crate::record::level::Level::Info,
        "t",
        "t",
        "t.rs",
        1,
        "lazy.event",
    );

    /// The start-up sink creates its file on the first event only, and a
    /// flush puts what it holds into the file (a `.prof` file is read while
    /// the program runs).
    #[test]
    fn the_startup_sink_opens_on_the_first_event_and_flushes_it() {
        let dir = crate::sink::scratch::Scratch::dir("lazy");
        let path = dir.join("lazy.prof");
        let sink = startup_sink(&dir, "lazy", None);
        sink.flush();
        assert!(!path.exists(), "no event, no file");
        sink.emit(&Record::new(
            &EVENT,
            crate::record::level::Level::Info,
            format_args!("e"),
            &[],
        ));
        sink.flush();
        let text = std::fs::read_to_string(&path).unwrap();
        let events: Vec<&str> = text.lines().map(|l| l.split(',').nth(1).unwrap()).collect();
        assert_eq!(events, ["event", "sync_abs", "lazy.event"], "{text}");
        drop(sink);
    }
}
