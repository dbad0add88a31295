//! Console sink: stderr or stdout, one `write` per line.

use std::io::{self, IsTerminal, Write};

use crate::format::Format;
use crate::record::Record;
use crate::sink::Sink;
use crate::{Level, LevelFilter};

/// Which console stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    /// Standard output.
    Stdout,
    /// Standard error (the default).
    Stderr,
}

/// Writes formatted lines to stdout or stderr. Colours the level only when
/// the stream is a terminal.
///
/// ```
/// use std::sync::Arc;
/// use elide::sink::ConsoleSink;
/// use elide::{format::Format, LevelFilter};
/// let sink = ConsoleSink::stdout().with_format(Format::Compact).with_level(LevelFilter::Info);
/// elide::set_sinks([Arc::new(sink) as Arc<dyn elide::Sink>]);
/// ```
#[derive(Debug)]
pub struct ConsoleSink {
    stream: Stream,
    format: Format,
    level: LevelFilter,
    color: bool,
}

impl ConsoleSink {
    /// A sink on `stream`, RADICAL format, all levels.
    pub fn new(stream: Stream) -> ConsoleSink {
        let color = match stream {
            Stream::Stdout => io::stdout().is_terminal(),
            Stream::Stderr => io::stderr().is_terminal(),
        };
        ConsoleSink {
            stream,
            format: Format::Radical,
            level: LevelFilter::Trace,
            color,
        }
        .armed()
    }
    fn armed(self) -> ConsoleSink {
        crate::process::arm();
        self
    }
    /// A sink on stderr.
    pub fn stderr() -> ConsoleSink {
        ConsoleSink::new(Stream::Stderr)
    }
    /// A sink on stdout.
    pub fn stdout() -> ConsoleSink {
        ConsoleSink::new(Stream::Stdout)
    }
    /// Sets the line format.
    pub fn with_format(mut self, format: Format) -> ConsoleSink {
        self.format = format;
        self
    }
    /// Sets the most verbose level written.
    pub fn with_level(mut self, level: LevelFilter) -> ConsoleSink {
        self.level = level;
        self
    }
    /// Forces colours on or off (by default: on only for a terminal).
    pub fn with_color(mut self, color: bool) -> ConsoleSink {
        self.color = color;
        self
    }

    fn render(&self, record: &Record<'_>, out: &mut String) {
        out.clear();
        self.format.write(record, out);
        if self.color && self.format != Format::Json {
            let name = record.level().as_str();
            let code = match record.level() {
                Level::Error => "31",
                Level::Warn => "33",
                Level::Info => "32",
                Level::Debug => "36",
                Level::Trace => "90",
            };
            if let Some(at) = out.find(name) {
                out.replace_range(at..at + name.len(), &format!("\x1b[{code}m{name}\x1b[0m"));
            }
        }
    }

    fn write_line(&self, line: &str) {
        // In a forked child, the stream's lock may have been held by a
        // thread of the parent: one raw write of the whole line instead.
        #[cfg(unix)]
        if crate::process::in_forked_child() {
            return self.write_raw(line);
        }
        let res = match self.stream {
            Stream::Stdout => io::stdout().lock().write_all(line.as_bytes()),
            Stream::Stderr => io::stderr().lock().write_all(line.as_bytes()),
        };
        if let Err(e) = res {
            let name = match self.stream {
                Stream::Stdout => "stdout",
                Stream::Stderr => "stderr",
            };
            crate::report_write_error(name, &e);
        }
    }
}

impl ConsoleSink {
    #[cfg(unix)]
    #[cold]
    fn write_raw(&self, line: &str) {
        use std::os::fd::FromRawFd;
        let fd = match self.stream {
            Stream::Stdout => 1,
            Stream::Stderr => 2,
        };
        // SAFETY: fds 1 and 2 stay open for the process; `ManuallyDrop`
        // keeps this handle from closing them.
        let mut out = std::mem::ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(fd) });
        let _ = out.write_all(line.as_bytes());
    }
}

impl Sink for ConsoleSink {
    fn max_level(&self) -> LevelFilter {
        self.level
    }
    fn emit(&self, record: &Record<'_>) {
        // Reuse one buffer per thread: no allocation per line in steady state.
        crate::format::with_line_buffer(|line| {
            self.render(record, line);
            self.write_line(line);
        });
    }
    /// Stdout only (stderr is unbuffered); not in a forked child, where
    /// the lock of stdout may be held for good (std's own exit flushes
    /// stdout there, if it can take the lock).
    fn flush(&self) {
        if self.stream == Stream::Stdout && !crate::process::in_forked_child() {
            let _ = io::stdout().flush();
        }
    }
}
