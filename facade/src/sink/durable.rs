//! Durable file output: a record counts as written only once `sync_data`
//! has returned for it. [`DurableFile`] behind an async sink commits a
//! batch per fsync; [`DurableFileSink`] makes each caller wait for its own.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};

use crate::format::Format;
use crate::record::level::LevelFilter;
use crate::record::Record;
use crate::sink::whole_lines::{Tally, WholeLines};
use crate::sink::Sink;

/// `fsync` is meaningless on pipes, sockets and terminals (Linux answers
/// `EINVAL`); there is nothing more to make durable, so that is not an error.
fn sync(file: &File) -> io::Result<()> {
    match file.sync_data() {
        Err(e) if e.kind() == io::ErrorKind::InvalidInput => Ok(()),
        other => other,
    }
}

/// A file whose [`flush`](Write::flush) makes everything written so far
/// durable (`sync_data`). Writes go straight to the OS, unbuffered: the
/// caller (normally an [`AsyncSink`](crate::sink::AsyncSink) writer thread)
/// already hands over whole batches, and flushes once per batch, so one
/// fsync commits the batch and callers never wait for the disk.
///
/// ```no_run
/// use std::sync::Arc;
/// use elide::sink::{AsyncSink, DurableFile};
/// // What `AsyncSink::open_durable("app.log")` makes, here with a writer of
/// // your choice in its place.
/// let sink = AsyncSink::builder().name("app.log").build(DurableFile::open("app.log")?);
/// elide::set_sinks([Arc::new(sink) as Arc<dyn elide::Sink>]);
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct DurableFile {
    file: File,
    path: PathBuf,
}

impl DurableFile {
    /// Opens `path` for appending, creating it if needed.
    pub fn open(path: impl AsRef<Path>) -> io::Result<DurableFile> {
        let path = path.as_ref().to_path_buf();
        Ok(DurableFile {
            file: crate::sink::open_append(&path)?,
            path,
        })
    }
    /// Wraps an already open file (`path` is used in error reports).
    pub fn from_file(file: File, path: impl Into<PathBuf>) -> DurableFile {
        DurableFile {
            file,
            path: path.into(),
        }
    }
    /// The path given when opening.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Write for DurableFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.write(buf)
    }
    /// `sync_data`: returns once the bytes written so far are on disk.
    fn flush(&mut self) -> io::Result<()> {
        sync(&self.file)
    }
}

/// Lines appended by callers and not yet committed, plus the commit progress.
#[derive(Default)]
struct Pending {
    /// Formatted lines waiting for the next commit.
    lines: String,
    /// An empty buffer to swap in, so steady state allocates nothing.
    spare: String,
    /// Records appended so far (a ticket per record).
    appended: u64,
    /// Records whose commit finished (durable, or failed and counted).
    committed: u64,
    /// Whether a thread is writing and syncing right now.
    syncing: bool,
}

/// A synchronous durable file sink: [`emit`](Sink::emit) returns only after
/// the record's line has been written and `sync_data` has returned.
///
/// Concurrent callers share fsyncs: the first caller to find no commit in
/// progress writes every pending line and syncs once, the others wait for
/// that commit. This is the slow, simple guarantee (a single thread waits
/// for one fsync per record); for durability without waiting put a
/// [`DurableFile`] behind an [`AsyncSink`](crate::sink::AsyncSink) instead
/// (see [`AsyncSink::open_durable`](crate::sink::AsyncSink::open_durable)).
///
/// Write errors are counted in [`stats`](DurableFileSink::failed) and
/// reported once via [`report_write_error`](crate::report_write_error);
/// the caller is never blocked by them.
///
/// ```no_run
/// use std::sync::Arc;
/// use elide::sink::DurableFileSink;
/// let sink = DurableFileSink::open("audit.log")?;
/// elide::set_sinks([Arc::new(sink) as Arc<dyn elide::Sink>]);
/// elide::warn!("on disk when this returns");
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct DurableFileSink {
    name: String,
    format: Format,
    level: LevelFilter,
    file: Mutex<Out>,
    pending: Mutex<Pending>,
    committed: Condvar,
    written: AtomicU64,
    failed: AtomicU64,
}

impl std::fmt::Debug for DurableFileSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DurableFileSink")
            .field("name", &self.name)
            .field("format", &self.format)
            .field("level", &self.level)
            .finish_non_exhaustive()
    }
}

/// The file, and the rest of a line a failed write tore.
struct Out {
    file: File,
    lines: WholeLines,
}

impl Out {
    /// Writes `text` (`records` whole lines) and syncs. A line torn by a
    /// failure is completed by the next write, so no later record is glued
    /// to its fragment (see `whole_lines`); the whole lines before a
    /// failure count only once they are synced.
    fn commit(&mut self, text: &str, records: u64) -> Tally {
        let mut t = self.lines.write_records(&mut self.file, text, records, &[]);
        if let Err(e) = sync(&self.file) {
            t = Tally {
                written: 0,
                failed: records,
                revived: 0,
                error: Some(t.error.unwrap_or(e)),
            };
        }
        t
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl DurableFileSink {
    /// Opens `path` for appending (creating it), RADICAL format, all levels.
    pub fn open(path: impl AsRef<Path>) -> io::Result<DurableFileSink> {
        let path = path.as_ref();
        Ok(DurableFileSink::from_file(
            crate::sink::open_append(path)?,
            path.display().to_string(),
        ))
    }
    /// Wraps an open file; `name` is used in error reports.
    pub fn from_file(file: File, name: impl Into<String>) -> DurableFileSink {
        crate::os::process::arm();
        DurableFileSink {
            name: name.into(),
            format: Format::Radical,
            level: LevelFilter::Trace,
            file: Mutex::new(Out {
                file,
                lines: WholeLines::default(),
            }),
            pending: Mutex::default(),
            committed: Condvar::new(),
            written: AtomicU64::new(0),
            failed: AtomicU64::new(0),
        }
    }
    /// Sets the line format.
    pub fn with_format(mut self, format: Format) -> DurableFileSink {
        self.format = format;
        self
    }
    /// Sets the most verbose level written.
    pub fn with_level(mut self, level: LevelFilter) -> DurableFileSink {
        self.level = level;
        self
    }
    /// Records written and synced.
    pub fn written(&self) -> u64 {
        self.written.load(Ordering::Relaxed)
    }
    /// Records lost to a write or sync error.
    pub fn failed(&self) -> u64 {
        self.failed.load(Ordering::Relaxed)
    }

    /// Appends `line` and returns once a commit covering it has finished.
    fn commit_line(&self, line: &str) {
        if crate::os::process::in_forked_child() {
            return self.commit_line_in_child(line);
        }
        let mut p = lock(&self.pending);
        p.lines.push_str(line);
        p.appended += 1;
        let ticket = p.appended;
        while p.committed < ticket {
            if p.syncing {
                p = self.committed.wait(p).unwrap_or_else(|e| e.into_inner());
                continue;
            }
            // Lead a commit of everything pending, outside the lock so
            // other callers keep appending meanwhile.
            p.syncing = true;
            let upto = p.appended;
            let count = upto - p.committed;
            let spare = std::mem::take(&mut p.spare);
            let mut batch = std::mem::replace(&mut p.lines, spare);
            drop(p);
            let tally = lock(&self.file).commit(&batch, count);
            self.settle(tally);
            batch.clear();
            p = lock(&self.pending);
            p.spare = batch;
            p.committed = upto;
            p.syncing = false;
            self.committed.notify_all();
        }
    }

    /// A forked child writes and syncs its own line alone: the pending
    /// lines and a commit in progress belong to threads of the parent,
    /// which do not exist here.
    #[cold]
    fn commit_line_in_child(&self, line: &str) {
        let tally = match crate::os::process::lock(&self.file) {
            Some(mut out) => out.commit(line, 1),
            None => Tally {
                written: 0,
                failed: 1,
                revived: 0,
                error: Some(crate::sink::file::held_at_fork()),
            },
        };
        self.settle(tally);
    }

    /// Counts a commit.
    fn settle(&self, t: Tally) {
        self.failed.fetch_sub(t.revived, Ordering::Relaxed);
        self.written.fetch_add(t.written, Ordering::Relaxed);
        if let Some(e) = t.error {
            crate::stats::report_write_error(&self.name, &e);
            self.failed.fetch_add(t.failed, Ordering::Relaxed);
        }
    }
}

impl Sink for DurableFileSink {
    fn max_level(&self) -> LevelFilter {
        self.level
    }
    fn emit(&self, record: &Record<'_>) {
        // Format outside the lock, into a per-thread buffer.
        crate::format::with_line_buffer(|line| {
            self.format.write(record, line);
            self.commit_line(line);
        });
    }
    /// Nothing to do: every `emit` already returned after its sync.
    fn flush(&self) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> crate::sink::scratch::Scratch {
        crate::sink::scratch::Scratch::dir(&format!("durable-{name}"))
    }

    /// `DurableFile` is a plain `io::Write` too: `write_all` and `write!`
    /// reach the file, appended, and `flush` succeeds on a regular file.
    #[test]
    fn durable_file_writes_and_appends() {
        let dir = scratch("append");
        let path = dir.join("d.log");
        std::fs::write(&path, "kept\n").unwrap();
        let mut f = DurableFile::open(&path).unwrap();
        f.write_all(b"one\n").unwrap();
        writeln!(f, "two {}", 2).unwrap();
        f.flush().unwrap();
        assert_eq!(f.path(), path.as_path());
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "kept\none\ntwo 2\n"
        );
    }

    /// A sink prints what it is and where it writes (`describe()` and
    /// `{:?}` of a sink set show it).
    #[test]
    fn the_sink_debugs_as_its_name_format_and_level() {
        let dir = scratch("debug");
        let sink = DurableFileSink::open(dir.join("audit.log")).unwrap();
        let shown = format!("{sink:?}");
        assert!(shown.starts_with("DurableFileSink"), "{shown}");
        assert!(shown.contains("audit.log"), "{shown}");
        assert!(shown.contains("format"), "{shown}");
    }

    /// On a pipe `sync_data` answers `EINVAL`: nothing more can be made
    /// durable, so `flush` succeeds instead of reporting a failed write.
    #[cfg(target_os = "linux")]
    #[test]
    fn flush_on_a_pipe_is_not_an_error() {
        let dir = scratch("fifo");
        let fifo = dir.join("p");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !made.is_ok_and(|s| s.success()) {
            eprintln!("skipped: mkfifo unavailable");
            return;
        }
        // Read and write: opening a FIFO so never blocks on Linux.
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&fifo)
            .unwrap();
        assert_eq!(
            file.sync_data().map_err(|e| e.kind()),
            Err(io::ErrorKind::InvalidInput),
            "the premise: a pipe cannot be synced"
        );
        let mut d = DurableFile::from_file(file, &fifo);
        d.write_all(b"line\n").unwrap();
        d.flush().expect("EINVAL from a pipe is not a failure");
    }
}
