//! How a file target trades caller latency against durability.

use std::io;
use std::path::Path;
use std::sync::Arc;

use crate::format::Format;
use crate::sink::{AsyncSink, DurableFileSink, Sink};
use crate::LevelFilter;

/// The ways elide can write a log file, for code (or configuration) that
/// picks one at run time.
///
/// | mode | caller waits for | on disk when |
/// |---|---|---|
/// | `Async` | a queue slot | the OS writes it back (or the process syncs) |
/// | `Durable` | a queue slot | `flush()` / the `init` guard's drop returns |
/// | `SyncDurable` | the fsync of its own record | `emit` returns |
///
/// ```no_run
/// use elide::sink::FileMode;
/// let sink = FileMode::Durable.open("run.log", Default::default(), elide::LevelFilter::Info)?;
/// elide::set_sinks([sink]);
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileMode {
    /// [`AsyncSink::file`]: queued, one `write` per batch, no fsync.
    Async,
    /// [`AsyncSink::durable_file`]: queued, one `sync_data` per batch.
    Durable,
    /// [`DurableFileSink`]: the caller waits for `sync_data`.
    SyncDurable,
}

impl FileMode {
    /// The mode's name as written in configuration: `async`, `durable`,
    /// `sync-durable`.
    pub fn as_str(self) -> &'static str {
        match self {
            FileMode::Async => "async",
            FileMode::Durable => "durable",
            FileMode::SyncDurable => "sync-durable",
        }
    }

    /// Parses a configuration value (case-insensitive, surrounding spaces
    /// ignored); `None` for anything else.
    pub fn parse(s: &str) -> Option<FileMode> {
        match s.trim().to_ascii_lowercase().as_str() {
            "async" => Some(FileMode::Async),
            "durable" => Some(FileMode::Durable),
            "sync-durable" => Some(FileMode::SyncDurable),
            _ => None,
        }
    }

    /// Opens `path` (appending; the file and its parent directories are
    /// created if needed) as a sink of this mode.
    pub fn open(
        self,
        path: impl AsRef<Path>,
        format: Format,
        level: LevelFilter,
    ) -> io::Result<Arc<dyn Sink>> {
        let path = path.as_ref();
        Ok(match self {
            FileMode::Async => Arc::new(
                AsyncSink::file_builder(path)?
                    .format(format)
                    .level(level)
                    .build(),
            ),
            FileMode::Durable => Arc::new(
                AsyncSink::durable_file_builder(path)?
                    .format(format)
                    .level(level)
                    .build(),
            ),
            FileMode::SyncDurable => Arc::new(
                DurableFileSink::open(path)?
                    .with_format(format)
                    .with_level(level),
            ),
        })
    }
}
