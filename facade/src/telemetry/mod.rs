//! Telemetry output: sinks for `telemetry!` events and a periodic counter
//! sampler.
//!
//! A `telemetry!` site emits only when telemetry is on for its namespace
//! ([`set_telemetry`](crate::set_telemetry), or `PROFILE` in the environment)
//! **and** some installed sink wants telemetry. Both sinks here want
//! telemetry and nothing else (their [`max_level`](crate::Sink::max_level) is
//! `Off`), so installing one never turns a log site on.
//!
//! - [`ProfSink`]: the radical.utils `.prof` CSV layout, readable by
//!   radical.analytics.
//! - [`JsonSink`]: one JSON object per event, fields typed.
//! - [`start_counter_sampler`]: publishes every `counter!` total as a
//!   telemetry event at a fixed interval, so the hot path never reads a clock.
//!
//! ```no_run
//! // Telemetry on everywhere, events to ./profiles/<exe>.prof:
//! let prof = elide::telemetry::enable("profiles")?;
//! elide::telemetry!("task.start", uid = "task.000001", state = "RUNNING");
//! prof.close()?; // END line, flush, fsync
//! # Ok::<(), std::io::Error>(())
//! ```

mod json;
mod prof;
mod sampler;

pub use json::JsonSink;
pub use prof::ProfSink;
pub use sampler::{start_counter_sampler, CounterSampler, COUNTER_EVENT, COUNTER_TARGET};

use std::fmt::Write as _;
use std::io;
use std::path::Path;
use std::sync::{Arc, Mutex, Weak};
use std::time::{SystemTime, UNIX_EPOCH};

/// `.prof` sinks installed by [`enable`] / [`enable_prof`], closed by [`close`].
static ENABLED: Mutex<Vec<Weak<ProfSink>>> = Mutex::new(Vec::new());

/// Installs a [`ProfSink`] writing `<dir>/<name>.prof`, where `name` is the
/// executable's file stem (`elide` if it cannot be found), and turns
/// telemetry on. See [`enable_prof`].
pub fn enable(dir: impl AsRef<Path>) -> io::Result<Arc<ProfSink>> {
    enable_prof(dir, &exe_name())
}

/// Opens `<dir>/<name>.prof` (creating `dir`; appending to an existing
/// file), adds it to the installed sinks with [`add_sink`](crate::add_sink)
/// and turns telemetry on with [`set_telemetry(true)`](crate::set_telemetry)
/// (namespaces with their own rule keep it).
///
/// The returned handle can [`close`](ProfSink::close) the file early;
/// [`close`] closes every sink installed this way, and dropping the last
/// handle closes it too. Until then, events are buffered and reach the disk
/// on [`flush`](crate::flush) (which fsyncs) or close.
pub fn enable_prof(dir: impl AsRef<Path>, name: &str) -> io::Result<Arc<ProfSink>> {
    let sink = Arc::new(ProfSink::create(dir, name)?);
    lock_enabled().push(Arc::downgrade(&sink));
    crate::add_sink(sink.clone());
    crate::set_telemetry(true);
    Ok(sink)
}

/// The `.prof` sink for process start-up when the environment turns
/// telemetry on (`PROFILE`): `<dir>/<name>.prof`. It is returned rather
/// than added, because start-up runs while sites resolve and must hand it
/// to the initial sink set. The file is opened on the first event, so a
/// `PROFILE` variable that no site reads leaves no file behind; once open it
/// is registered so [`close`] (the last `init` guard, the exit handler) ends
/// it. A failure to open gives one warning on stderr naming the directory
/// and the fallback (no `.prof` output).
pub(crate) fn startup_sink(dir: &Path, name: &str) -> Arc<dyn crate::Sink> {
    Arc::new(LazyProf {
        dir: dir.to_owned(),
        name: name.to_owned(),
        sink: std::sync::OnceLock::new(),
    })
}

struct LazyProf {
    dir: std::path::PathBuf,
    name: String,
    sink: std::sync::OnceLock<Option<Arc<ProfSink>>>,
}

impl LazyProf {
    fn open(&self) -> Option<&Arc<ProfSink>> {
        self.sink
            .get_or_init(|| match ProfSink::create(&self.dir, &self.name) {
                Ok(sink) => {
                    let sink = Arc::new(sink);
                    lock_enabled().push(Arc::downgrade(&sink));
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

impl crate::Sink for LazyProf {
    fn max_level(&self) -> crate::LevelFilter {
        crate::LevelFilter::Off
    }
    fn wants_telemetry(&self) -> bool {
        true
    }
    fn emit(&self, record: &crate::Record<'_>) {
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

fn exe_name() -> String {
    std::env::current_exe()
        .ok()
        .and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "elide".to_owned())
}

/// Closes every `.prof` sink installed by [`enable`] / [`enable_prof`]:
/// each gets its `END` line, a flush and an fsync. The `init` guard and, on
/// Unix, elide's exit handler call it, so a `.prof` file ends with `END`
/// even though sinks held by the global set are never dropped.
/// Events emitted afterwards to a closed sink are discarded.
pub fn close() {
    let sinks: Vec<_> = lock_enabled().drain(..).collect();
    for sink in sinks.iter().filter_map(Weak::upgrade) {
        if let Err(e) = sink.close() {
            crate::report_write_error(&sink.path().display().to_string(), &e);
        }
    }
}

fn lock_enabled() -> std::sync::MutexGuard<'static, Vec<Weak<ProfSink>>> {
    ENABLED.lock().unwrap_or_else(|e| e.into_inner())
}

/// Writes `t` as epoch seconds with exactly seven decimals (`%.7f`), from
/// the integer parts so no float rounding creeps into the last digits.
pub(crate) fn write_epoch_7(t: SystemTime, out: &mut String) {
    let (sign, d) = match t.duration_since(UNIX_EPOCH) {
        Ok(d) => ("", d),
        Err(e) => ("-", e.duration()),
    };
    let _ = write!(out, "{sign}{}.{:07}", d.as_secs(), d.subsec_nanos() / 100);
}

/// The calling thread's label (for the header and `END` lines): its name,
/// or its elide thread number. Records carry their own (`Record::thread`).
pub(crate) fn thread_label(out: &mut impl std::fmt::Write) {
    match std::thread::current().name() {
        Some(name) => {
            let _ = out.write_str(name);
        }
        None => {
            let _ = write!(out, "{}", crate::thread_number());
        }
    }
}
