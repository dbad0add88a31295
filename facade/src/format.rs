//! Line formats: the RADICAL layout, JSON lines and a compact human format.
//!
//! Every format writes exactly one line per record, by Python's
//! `str.splitlines()` rules: newlines, every other control character and
//! U+2028 / U+2029 are escaped in messages, targets, keys and values. In the
//! RADICAL and Compact layouts a target is one space-free token and a key or
//! value that is empty or holds a space, `=`, `"`, `\` or a line break is
//! quoted, so no text can be read back as another column or another
//! `key=value` pair.

use std::fmt::Write;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::record::Record;
use crate::value::Value;

mod compact;
mod digits;
mod escape;
mod json;
mod radical;

pub use escape::Escaped;
pub use json::{json_fields, json_str, json_value};
pub use radical::{set_name_style, NameStyle};

/// A line layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Format {
    /// The layout of radical.utils' logger, column for column
    /// (`%(created).3f : %(name)-20s : %(process)-5d : %(thread)-5d :
    /// %(levelname)-8s : %(message)s`), then the fields as ` key=value`:
    ///
    /// ```text
    /// 1796066819.926 : radical.asyncflow    : 3556  : 1     : WARNING  : a warning uid=7
    /// ```
    ///
    /// - time: epoch seconds, rounded to milliseconds as Python's `%.3f`
    ///   rounds `time.time()`;
    /// - name: the site's target, left-aligned in 20 columns (longer names
    ///   are not cut), or its dotted spelling (see [`set_name_style`]);
    /// - process id, left-aligned in 5;
    /// - thread: elide's thread number ([`thread_number`](crate::thread_number):
    ///   1 for the first thread that logs, then 2, 3, ...), left-aligned in 5.
    ///   It is stable for the thread's life and the same on every path
    ///   (an async writer prints the caller's); Python prints its thread
    ///   ident instead, which has no Rust equivalent;
    /// - level: Python's names `ERROR`, `WARNING`, `INFO`, `DEBUG`, and
    ///   `TRACE` for trace records (Python has none), left-aligned in 8.
    #[default]
    Radical,
    /// One JSON object per line: `time`, `level`, `target`, `pid`, `tid`,
    /// `msg`, `fields` (typed), `file`, `line`.
    Json,
    /// `HH:MM:SS.mmm LEVEL target: message key=value` (UTC).
    Compact,
}

thread_local! {
    static LINE: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// Runs `f` with this thread's reusable, empty line buffer, so sinks render
/// without allocating per record in steady state. A nested call on the same
/// thread (only possible from inside `f`) gets a fresh buffer instead.
pub(crate) fn with_line_buffer(f: impl FnOnce(&mut String)) {
    let mut f = Some(f);
    let _ = LINE.try_with(|buf| {
        if let Ok(mut line) = buf.try_borrow_mut() {
            line.clear();
            (f.take().expect("called once"))(&mut line);
        }
    });
    if let Some(f) = f {
        f(&mut String::new());
    }
}

/// The cached process id; 0 = not read yet (or forgotten in a forked child).
static PID: AtomicU32 = AtomicU32::new(0);

/// The process id, for every line. `getpid` is a system call (about 130 ns
/// here, a third of a RADICAL header), so it is read once and kept; on Unix
/// a `pthread_atfork` child handler forgets it, so a forked child prints its
/// own id. If the handler cannot be registered, nothing is cached.
pub(crate) fn pid() -> u32 {
    match PID.load(Ordering::Relaxed) {
        0 => {
            let pid = std::process::id();
            if fork_hook_installed() {
                PID.store(pid, Ordering::Relaxed);
            }
            pid
        }
        pid => pid,
    }
}

#[cfg(unix)]
fn fork_hook_installed() -> bool {
    use std::sync::OnceLock;
    extern "C" {
        // POSIX; in the C library std already links.
        fn pthread_atfork(
            prepare: Option<extern "C" fn()>,
            parent: Option<extern "C" fn()>,
            child: Option<extern "C" fn()>,
        ) -> std::ffi::c_int;
    }
    extern "C" fn forget_pid() {
        // Async-signal-safe: atomic stores only.
        PID.store(0, Ordering::Relaxed);
        crate::sample::forget_ticker_after_fork();
    }
    static INSTALLED: OnceLock<bool> = OnceLock::new();
    // SAFETY: registers a handler that only stores to an atomic; the
    // function pointers are valid for the life of the process.
    *INSTALLED.get_or_init(|| unsafe { pthread_atfork(None, None, Some(forget_pid)) } == 0)
}

#[cfg(not(unix))]
fn fork_hook_installed() -> bool {
    // No fork: the id never changes.
    true
}

/// Seconds since the Unix epoch, as a float.
pub fn epoch_secs(t: SystemTime) -> f64 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_secs_f64(),
        Err(e) => -e.duration().as_secs_f64(),
    }
}

impl Format {
    /// Appends one formatted line (with its `\n`) for `record` to `out`.
    ///
    /// ```
    /// use std::sync::{Arc, Mutex};
    /// use elide::{format::Format, Record, Sink};
    ///
    /// struct Lines(Mutex<String>);
    /// impl Sink for Lines {
    ///     fn emit(&self, r: &Record<'_>) { Format::Json.write(r, &mut self.0.lock().unwrap()) }
    /// }
    /// let lines = Arc::new(Lines(Mutex::new(String::new())));
    /// elide::set_sinks([lines.clone() as Arc<dyn Sink>]);
    /// elide::error!(uid = 3, "line one\nline two");
    /// let out = lines.0.lock().unwrap();
    /// assert_eq!(out.lines().count(), 1);
    /// assert!(out.contains(r#""msg":"line one\nline two","fields":{"uid":3}"#));
    /// ```
    pub fn write(self, record: &Record<'_>, out: &mut String) {
        match self {
            Format::Radical => radical::write(record, out),
            Format::Json => json::write(record, out),
            Format::Compact => compact::write(record, out),
        }
        out.push('\n');
    }

    /// Where the level name sits in a line this format wrote (without its
    /// padding), for a console that colours it; `None` for JSON. The
    /// columns before it cannot hold the separators (names are escaped), so
    /// a target that contains a level name is never coloured by mistake.
    pub(crate) fn level_span(self, line: &str) -> Option<std::ops::Range<usize>> {
        let start = match self {
            // time : name : pid : tid : LEVEL
            Format::Radical => line.match_indices(" : ").nth(3)?.0 + 3,
            // HH:MM:SS.mmm LEVEL
            Format::Compact => line.find(' ')? + 1,
            Format::Json => return None,
        };
        let len = line[start..].find(' ')?;
        Some(start..start + len)
    }
}

fn write_message(record: &Record<'_>, out: &mut String) {
    match record.args().as_str() {
        Some(s) => escape::escape_text(s, out),
        None => {
            let _ = Escaped(out).write_fmt(*record.args());
        }
    }
}

fn write_fields(record: &Record<'_>, out: &mut String) {
    for (k, v) in record.fields() {
        out.push(' ');
        write_plain_key(k, out);
        out.push('=');
        write_plain_value(v, out);
    }
}

/// A `key=value` key: quoted and escaped like a string value when needed.
pub(crate) fn write_plain_key(k: &str, out: &mut String) {
    escape::quoted_str(k, out);
}

/// A `key=value` value: numbers and bools bare; every other kind (strings,
/// chars, `%x`, `?x`) quoted and escaped when it is empty or holds a space,
/// `=`, `"`, `\` or a line break (see [`escape::Quoted`]).
pub(crate) fn write_plain_value(v: &Value<'_>, out: &mut String) {
    match *v {
        Value::I64(n) => digits::push_i64(n, out),
        Value::U64(n) => {
            digits::push_u64(n, out);
        }
        Value::I128(_) | Value::U128(_) | Value::F64(_) => {
            let _ = write!(out, "{v}");
        }
        Value::Bool(b) => out.push_str(if b { "true" } else { "false" }),
        Value::Str(s) => escape::quoted_str(s, out),
        ref other => {
            let mut q = escape::Quoted::begin(out);
            let _ = write!(q, "{other}");
            q.end();
        }
    }
}
