//! Console sink: stderr or stdout, one `write` per line.

use std::ffi::{OsStr, OsString};
use std::io::{self, IsTerminal, Write};
use std::sync::{Mutex, OnceLock};

use crate::format::Format;
use crate::record::level::{Level, LevelFilter};
use crate::record::Record;
use crate::sink::Sink;

/// Which console stream; the discriminant is its file descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stream {
    /// Standard output.
    Stdout = 1,
    /// Standard error (the default).
    Stderr = 2,
}

/// Writes formatted lines to stdout or stderr, colouring the level name.
///
/// Colour is decided once, when the sink writes its first line: on for a
/// terminal, off otherwise; a non-empty `NO_COLOR` turns it off even on a terminal
/// (<https://no-color.org>), and `CLICOLOR_FORCE` set to anything but
/// empty or `0` turns it on for a pipe or file. `NO_COLOR` wins when both
/// are set. Both are read with the rest of elide's environment snapshot (at
/// [`init`](crate::init) or the first site, again at
/// [`reload_from_env`](crate::reload_from_env)), so
/// [`describe`](crate::describe) shows them.
/// [`with_color`](ConsoleSink::with_color) overrides all of this.
/// JSON lines are never coloured.
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
    /// Decided at the first line (the snapshot is read by then), unless
    /// [`with_color`](ConsoleSink::with_color) decided it.
    color: OnceLock<bool>,
}

/// `NO_COLOR` and `CLICOLOR_FORCE` as elide's environment snapshot holds
/// them; set by the runtime whenever it reads the environment.
static COLOR_ENV: Mutex<(Option<OsString>, Option<OsString>)> = Mutex::new((None, None));

/// Records the values of `NO_COLOR` and `CLICOLOR_FORCE` (`None` when
/// unset) for the console sinks that have not written yet.
pub(crate) fn set_color_env(no_color: Option<&OsStr>, force: Option<&OsStr>) {
    *COLOR_ENV.lock().unwrap_or_else(|e| e.into_inner()) =
        (no_color.map(OsStr::to_owned), force.map(OsStr::to_owned));
}

impl ConsoleSink {
    /// A sink on `stream`, RADICAL format, all levels.
    fn new(stream: Stream) -> ConsoleSink {
        crate::os::process::arm();
        ConsoleSink {
            stream,
            format: Format::Radical,
            level: LevelFilter::Trace,
            color: OnceLock::new(),
        }
    }
    /// A sink on stderr: RADICAL format, all levels.
    pub fn stderr() -> ConsoleSink {
        ConsoleSink::new(Stream::Stderr)
    }
    /// A sink on stdout: RADICAL format, all levels.
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
    /// Forces colours on or off (by default: on for a terminal, subject to
    /// `NO_COLOR` and `CLICOLOR_FORCE`).
    pub fn with_color(mut self, color: bool) -> ConsoleSink {
        self.color = OnceLock::from(color);
        self
    }

    /// Whether lines get colour, decided at the first.
    fn color(&self) -> bool {
        *self.color.get_or_init(|| {
            let is_terminal = match self.stream {
                Stream::Stdout => io::stdout().is_terminal(),
                Stream::Stderr => io::stderr().is_terminal(),
            };
            let env = COLOR_ENV.lock().unwrap_or_else(|e| e.into_inner());
            color_wanted(is_terminal, env.0.as_deref(), env.1.as_deref())
        })
    }

    fn render(&self, record: &Record<'_>, out: &mut String) {
        out.clear();
        self.format.write(record, out);
        if self.color() {
            let colour = match record.level() {
                Level::Error => "\x1b[31m",
                Level::Warn => "\x1b[33m",
                Level::Info => "\x1b[32m",
                Level::Debug => "\x1b[36m",
                Level::Trace => "\x1b[90m",
            };
            // Two insertions, the end first so the start stays put: no
            // temporary string, and no splice code linked for it.
            if let Some(span) = self.format.level_span(out) {
                out.insert_str(span.end, "\x1b[0m");
                out.insert_str(span.start, colour);
            }
        }
    }

    fn write_line(&self, line: &str) {
        // In a forked child, the stream's lock may have been held by a
        // thread of the parent: one raw write of the whole line instead.
        #[cfg(unix)]
        if crate::os::process::in_forked_child() {
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
            crate::stats::report_write_error(name, &e);
        }
    }

    #[cfg(unix)]
    #[cold]
    fn write_raw(&self, line: &str) {
        use std::os::fd::FromRawFd;
        let fd = self.stream as i32;
        // SAFETY: fds 1 and 2 stay open for the process; `ManuallyDrop`
        // keeps this handle from closing them.
        let mut out = std::mem::ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(fd) });
        let _ = out.write_all(line.as_bytes());
    }
}

/// Whether a console stream gets colour, from whether it is a terminal and
/// the values of `NO_COLOR` and `CLICOLOR_FORCE` (`None` when unset).
fn color_wanted(is_terminal: bool, no_color: Option<&OsStr>, force: Option<&OsStr>) -> bool {
    if no_color.is_some_and(|v| !v.is_empty()) {
        return false;
    }
    if force.is_some_and(|v| !v.is_empty() && v != "0") {
        return true;
    }
    is_terminal
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
        if self.stream == Stream::Stdout && !crate::os::process::in_forked_child() {
            let _ = io::stdout().flush();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::color_wanted;
    use std::ffi::OsStr;

    #[test]
    fn colour_follows_terminal_no_color_and_clicolor_force() {
        let v = |s: &'static str| Some(OsStr::new(s));
        // Neither variable: the terminal decides.
        assert!(color_wanted(true, None, None));
        assert!(!color_wanted(false, None, None));
        // NO_COLOR: any non-empty value turns colour off, even on a terminal.
        assert!(!color_wanted(true, v("1"), None));
        assert!(!color_wanted(true, v("0"), None));
        assert!(!color_wanted(true, v("false"), None));
        assert!(color_wanted(true, v(""), None));
        // CLICOLOR_FORCE: anything but empty or 0 forces colour off a terminal.
        assert!(color_wanted(false, None, v("1")));
        assert!(color_wanted(false, None, v("yes")));
        assert!(!color_wanted(false, None, v("0")));
        assert!(!color_wanted(false, None, v("")));
        // Both: NO_COLOR wins.
        assert!(!color_wanted(false, v("1"), v("1")));
        assert!(!color_wanted(true, v("1"), v("1")));
    }
}
