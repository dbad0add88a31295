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
//!   radical.analytics (cargo feature `prof`).
//! - [`JsonSink`]: one JSON object per event, fields typed (cargo feature
//!   `json`).
//! - [`scope!`](crate::scope) and [`#[timed]`](crate::timed): timed scopes,
//!   a `<name>_start`/`<name>_stop` event pair with ids, parent and duration
//!   (see [`Scope`]).
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

mod handoff;
mod sampler;
pub(crate) mod scope;

#[cfg(feature = "prof")]
#[cfg_attr(docsrs, doc(cfg(feature = "prof")))]
pub use crate::sink::profiles::close;
// The telemetry sinks live in `sink` with the others; these paths stay for
// code written against them.
#[cfg(feature = "json")]
#[doc(hidden)]
pub use crate::sink::JsonSink;
#[cfg(feature = "prof")]
#[doc(hidden)]
pub use crate::sink::ProfSink;
pub use handoff::ScopeHandle;
#[allow(deprecated)]
pub use handoff::{current_handle, in_scope};
pub use sampler::{start_counter_sampler, CounterSampler};
pub use scope::{Scope, ScopeGuard};

#[cfg(feature = "prof")]
use std::{io, path::Path, sync::Arc};

/// Installs a [`ProfSink`] writing `<dir>/<name>.prof`, where `name` is
/// `PROFILE_NAME` of the application root namespace if set, else the
/// executable's file stem (`elide` if it cannot be found), and turns
/// telemetry on. See [`enable_prof`]. (Cargo feature `prof`.)
#[cfg(feature = "prof")]
#[cfg_attr(docsrs, doc(cfg(feature = "prof")))]
pub fn enable(dir: impl AsRef<Path>) -> io::Result<Arc<ProfSink>> {
    let (name, _) = crate::control::profile_name_and_host();
    enable_prof(dir, &name.unwrap_or_else(exe_name))
}

/// Opens `<dir>/<name>.prof` (creating `dir`; appending to an existing
/// file), adds it to the installed sinks with [`add_sink`](crate::add_sink)
/// and turns telemetry on with [`set_telemetry(true)`](crate::set_telemetry)
/// (namespaces with their own rule keep it). `PROFILE_HOST` of the
/// application root namespace, if set, is the `sync_abs` host (see
/// [`ProfSink::with_host`]).
///
/// The returned handle can [`close`](ProfSink::close) the file early;
/// [`close`] closes every sink installed this way, and dropping the last
/// handle closes it too. Until then, events are buffered and reach the disk
/// on [`flush`](crate::flush) (which fsyncs) or close.
#[cfg(feature = "prof")]
#[cfg_attr(docsrs, doc(cfg(feature = "prof")))]
pub fn enable_prof(dir: impl AsRef<Path>, name: &str) -> io::Result<Arc<ProfSink>> {
    let sink = ProfSink::open(dir, name)?;
    let sink = Arc::new(match crate::control::profile_name_and_host() {
        (_, Some(host)) => sink.with_host(&host),
        _ => sink,
    });
    crate::sink::profiles::register(&sink);
    crate::control::add_sink(sink.clone());
    crate::control::set_telemetry(true);
    Ok(sink)
}

#[cfg(feature = "prof")]
fn exe_name() -> String {
    crate::os::process::exe_name().unwrap_or_else(|| "elide".to_owned())
}
