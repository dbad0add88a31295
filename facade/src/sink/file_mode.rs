//! How a file target trades caller latency against durability.

use std::io;
use std::path::Path;
use std::sync::Arc;

use crate::format::Format;
use crate::record::level::LevelFilter;
#[cfg(feature = "async")]
use crate::sink::AsyncSink;
#[cfg(feature = "file")]
use crate::sink::DurableFileSink;
use crate::sink::Sink;

/// The ways elide can write a log file, for code (or configuration) that
/// picks one at run time.
///
/// `Async` and `Durable` need the cargo feature `async`, and every mode the
/// cargo feature `file` (both on by default); without them
/// [`open`](FileMode::open) refuses the mode and
/// [`is_available`](FileMode::is_available) says so.
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
    /// `AsyncSink::open`: queued, one `write` per batch, no fsync
    /// (feature `async`).
    Async,
    /// `AsyncSink::open_durable`: queued, one `sync_data` per batch
    /// (feature `async`).
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
        let s = s.trim();
        [FileMode::Async, FileMode::Durable, FileMode::SyncDurable]
            .into_iter()
            .find(|mode| s.eq_ignore_ascii_case(mode.as_str()))
    }

    /// Whether this build of elide can open the mode: `Async` and `Durable`
    /// need the cargo feature `async`, `SyncDurable` the feature `file`
    /// (which `async` turns on).
    ///
    /// ```
    /// use elide::sink::FileMode;
    /// assert_eq!(FileMode::SyncDurable.is_available(), cfg!(feature = "file"));
    /// assert_eq!(FileMode::Async.is_available(), cfg!(feature = "async"));
    /// ```
    pub fn is_available(self) -> bool {
        cfg!(feature = "async") || (cfg!(feature = "file") && self == FileMode::SyncDurable)
    }

    /// The synchronous way of writing a file that keeps this mode's promise,
    /// for a build without the `async` feature: `None` (the buffered
    /// [`FileSink`](crate::sink::FileSink)) for `Async`, `SyncDurable` for
    /// the durable modes.
    #[cfg(feature = "file")]
    pub(crate) fn synchronous(self) -> Option<FileMode> {
        match self {
            FileMode::Async => None,
            FileMode::Durable | FileMode::SyncDurable => Some(FileMode::SyncDurable),
        }
    }

    /// Opens `path` (appending; the file and its parent directories are
    /// created if needed) as a sink of this mode.
    ///
    /// A mode this build lacks (see [`is_available`](FileMode::is_available))
    /// is an error of kind [`Unsupported`](io::ErrorKind::Unsupported).
    #[cfg_attr(not(feature = "file"), allow(unused_variables, unreachable_code))]
    pub fn open(
        self,
        path: impl AsRef<Path>,
        format: Format,
        level: LevelFilter,
    ) -> io::Result<Arc<dyn Sink>> {
        let path = path.as_ref();
        Ok(match self {
            #[cfg(feature = "async")]
            FileMode::Async => Arc::new(
                AsyncSink::builder()
                    .format(format)
                    .level(level)
                    .open(path)?,
            ),
            #[cfg(feature = "async")]
            FileMode::Durable => Arc::new(
                AsyncSink::builder()
                    .format(format)
                    .level(level)
                    .open_durable(path)?,
            ),
            #[cfg(feature = "file")]
            FileMode::SyncDurable => Arc::new(
                DurableFileSink::open(path)?
                    .with_format(format)
                    .with_level(level),
            ),
            // A mode this build lacks.
            #[allow(unreachable_patterns)]
            _ => {
                let feature = if cfg!(feature = "file") {
                    "async"
                } else {
                    "file"
                };
                return Err(io::Error::new(
                    io::ErrorKind::Unsupported,
                    format!(
                        "log mode {} needs elide's `{feature}` feature",
                        self.as_str()
                    ),
                ));
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mode_parses_from_its_name_in_any_case() {
        for mode in [FileMode::Async, FileMode::Durable, FileMode::SyncDurable] {
            assert_eq!(FileMode::parse(mode.as_str()), Some(mode));
            let shouted = format!(" {} ", mode.as_str().to_ascii_uppercase());
            assert_eq!(FileMode::parse(&shouted), Some(mode));
        }
        assert_eq!(FileMode::parse("sync_durable"), None);
        assert_eq!(FileMode::parse(""), None);
    }

    #[cfg(feature = "file")]
    #[test]
    fn synchronous_fallback_keeps_the_durability_promise() {
        assert_eq!(FileMode::Async.synchronous(), None);
        assert_eq!(FileMode::Durable.synchronous(), Some(FileMode::SyncDurable));
        assert_eq!(
            FileMode::SyncDurable.synchronous(),
            Some(FileMode::SyncDurable)
        );
    }

    /// Without `async`, the queued modes are refused (not silently opened
    /// as something else) and say which feature they need.
    #[cfg(all(feature = "file", not(feature = "async")))]
    #[test]
    fn queued_modes_need_the_async_feature() {
        let dir = std::env::temp_dir().join(format!("elide-file-mode-{}", std::process::id()));
        for mode in [FileMode::Async, FileMode::Durable] {
            assert!(!mode.is_available());
            let err = match mode.open(dir.join("x.log"), Format::Radical, LevelFilter::Info) {
                Err(e) => e,
                Ok(_) => panic!("{mode:?} opened without the async feature"),
            };
            assert_eq!(err.kind(), io::ErrorKind::Unsupported);
            assert!(err.to_string().contains("`async`"), "{err}");
        }
        assert!(FileMode::SyncDurable.is_available());
        assert!(!dir.exists(), "a refused mode created its directory");
    }

    /// Without `file`, every mode is refused, naming that feature, and
    /// nothing is created.
    #[cfg(not(feature = "file"))]
    #[test]
    fn every_mode_needs_the_file_feature() {
        let dir = std::env::temp_dir().join(format!("elide-file-mode-nf-{}", std::process::id()));
        for mode in [FileMode::Async, FileMode::Durable, FileMode::SyncDurable] {
            assert!(!mode.is_available());
            let err = match mode.open(dir.join("x.log"), Format::Radical, LevelFilter::Info) {
                Err(e) => e,
                Ok(_) => panic!("{mode:?} opened without the file feature"),
            };
            assert_eq!(err.kind(), io::ErrorKind::Unsupported);
            assert!(err.to_string().contains("`file`"), "{err}");
        }
        assert!(!dir.exists(), "a refused mode created its directory");
    }
}
