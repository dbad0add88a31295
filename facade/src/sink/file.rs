//! Buffered file sink.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use crate::format::Format;
use crate::record::level::{Level, LevelFilter};
use crate::record::Record;
use crate::sink::Sink;

/// Appends formatted lines to a file through a buffer.
///
/// The file is opened in append mode (parent directories are created), so
/// several runs, or several processes, add to one log. Lines are buffered
/// and reach the OS on [`flush`](Sink::flush) (which [`elide::flush`] and the
/// `init` guard call), when the buffer is full, and right after every record
/// at or below the flush level (default `Warn`), so the lines that explain a
/// crash are not left in the buffer. Nothing is fsynced. Write errors are
/// counted and reported once through [`report_write_error`].
///
/// [`elide::flush`]: crate::flush
/// [`report_write_error`]: crate::report_write_error
///
/// ```
/// use std::sync::Arc;
/// use elide::sink::FileSink;
/// use elide::format::Format;
/// # let dir = std::env::temp_dir().join(format!("elide-doc-{}", std::process::id()));
/// let path = dir.join("logs/app.log");
/// let sink = Arc::new(FileSink::open(&path)?.with_format(Format::Json));
/// elide::set_sinks([sink as Arc<dyn elide::Sink>]);
/// elide::set_level(elide::LevelFilter::Info);
/// elide::info!(uid = 1, "to the file");
/// elide::flush();
/// assert!(std::fs::read_to_string(&path)?.contains("\"msg\":\"to the file\""));
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct FileSink {
    path: PathBuf,
    /// The path as text, computed once for error reports.
    name: String,
    format: Format,
    level: LevelFilter,
    flush_level: LevelFilter,
    out: Mutex<Out>,
}

/// The buffered file and the process whose lines the buffer holds.
#[derive(Debug)]
struct Out {
    file: BufWriter<File>,
    pid: u32,
}

/// Buffer size: one `write` per 64 KiB of lines.
const BUFFER: usize = 64 * 1024;

impl FileSink {
    /// Opens (creating it and its parent directories if needed) `path` for
    /// appending. RADICAL format, all levels, flush after warnings and errors.
    pub fn open(path: impl AsRef<Path>) -> io::Result<FileSink> {
        let path = path.as_ref().to_path_buf();
        let file = crate::sink::open_append(&path)?;
        Ok(FileSink {
            name: path.display().to_string(),
            path,
            format: Format::Radical,
            level: LevelFilter::Trace,
            flush_level: LevelFilter::Warn,
            out: Mutex::new(Out {
                file: BufWriter::with_capacity(BUFFER, file),
                pid: crate::os::process::pid(),
            }),
        })
    }
    /// Sets the line format.
    pub fn with_format(mut self, format: Format) -> FileSink {
        self.format = format;
        self
    }
    /// Sets the most verbose level written.
    pub fn with_level(mut self, level: LevelFilter) -> FileSink {
        self.level = level;
        self
    }
    /// Sets the least severe level that is flushed to the OS right after it
    /// is written (`Off`: only when the buffer fills or on `flush`).
    pub fn with_flush_level(mut self, level: LevelFilter) -> FileSink {
        self.flush_level = level;
        self
    }
    /// The file written.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The buffered file. In a forked child: `None` if a thread of the
    /// parent held it at the fork, and otherwise without the parent's
    /// buffered lines (the parent writes those itself).
    fn out(&self) -> Option<MutexGuard<'_, Out>> {
        let mut out = crate::os::process::lock(&self.out)?;
        let pid = crate::os::process::pid();
        if out.pid != pid {
            let placeholder = BufWriter::with_capacity(0, out.file.get_ref().try_clone().ok()?);
            let (file, _parents_lines) = std::mem::replace(&mut out.file, placeholder).into_parts();
            out.file = BufWriter::with_capacity(BUFFER, file);
            out.pid = pid;
        }
        Some(out)
    }

    fn write_line(&self, line: &str, level: Level) {
        let Some(mut out) = self.out() else {
            return crate::stats::report_write_error(&self.name, &held_at_fork());
        };
        let mut res = out.file.write_all(line.as_bytes());
        if res.is_ok() && level <= self.flush_level {
            res = out.file.flush();
        }
        if let Err(e) = res {
            crate::stats::report_write_error(&self.name, &e);
        }
    }
}

/// The error of a record dropped in a forked child because a thread of the
/// parent held the sink's lock at the fork.
pub(crate) fn held_at_fork() -> io::Error {
    io::Error::other("in a forked child, the sink was in use by a thread of the parent at the fork; the record is dropped")
}

impl Sink for FileSink {
    fn max_level(&self) -> LevelFilter {
        self.level
    }
    fn emit(&self, record: &Record<'_>) {
        // Format outside the lock, into a per-thread buffer.
        crate::format::with_line_buffer(|line| {
            self.format.write(record, line);
            self.write_line(line, record.level());
        });
    }
    fn flush(&self) {
        // In a forked child, a file the parent held stays as it is.
        let Some(mut out) = self.out() else { return };
        if let Err(e) = out.file.flush() {
            crate::stats::report_write_error(&self.name, &e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::metadata::{Kind, Metadata};
    use crate::sink::scratch::Scratch;
    use std::fs;

    static META: Metadata = Metadata::new(Kind::Log, Level::Info, "t", "t", "f.rs", 1, "");

    fn temp(name: &str) -> Scratch {
        Scratch::dir(&format!("file-{name}"))
    }

    fn emit(sink: &FileSink, level: Level, msg: &str) {
        sink.emit(&Record::new(&META, level, format_args!("{msg}"), &[]));
    }

    #[test]
    fn buffers_until_flush_and_appends() {
        let dir = temp("append");
        let path = dir.join("a/b/log.txt");
        let sink = FileSink::open(&path).unwrap().with_format(Format::Compact);
        emit(&sink, Level::Info, "one");
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            "",
            "info stays buffered"
        );
        emit(&sink, Level::Warn, "two");
        let text = fs::read_to_string(&path).unwrap();
        assert!(text.contains("one") && text.contains("two"), "{text}");
        emit(&sink, Level::Debug, "three");
        sink.flush();
        drop(sink);
        let again = FileSink::open(&path).unwrap();
        emit(&again, Level::Info, "four");
        again.flush();
        let lines: Vec<String> = fs::read_to_string(&path)
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect();
        assert_eq!(lines.len(), 4, "{lines:?}");
        assert!(lines[3].ends_with("four"));
    }

    #[test]
    fn unopenable_path_is_an_error() {
        let dir = temp("blocked");
        let file = dir.join("plain");
        fs::write(&file, "x").unwrap();
        assert!(FileSink::open(file.join("sub/log.txt")).is_err());
    }
}
