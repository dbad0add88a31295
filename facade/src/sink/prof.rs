//! The radical.utils `.prof` sink: seven comma-separated fields per line.

use std::fmt::{self, Write as _};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::net::Ipv4Addr;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::SystemTime;

use super::ntp_cache::{self, Offset};
use super::profiles::thread_label;
use crate::format::{prof_text, push_epoch_7};
use crate::record::decimal::{push_i64, push_u64};
use crate::record::level::LevelFilter;
use crate::record::value::Visit;
use crate::record::Record;
use crate::sink::Sink;

/// The header line's field names, in line order.
pub(crate) const HEADER: &str = "#time,event,comp,thread,uid,state,msg";

/// Fields that fill a column of their own instead of going into `msg`.
const COLUMNS: [&str; 4] = ["uid", "state", "msg", "comp"];

/// Writes telemetry events in the radical.utils profile layout, readable by
/// radical.analytics:
///
/// ```text
/// #time,event,comp,thread,uid,state,msg
/// 1718000000.1234567,sync_abs,agent,main,,,node01.cluster.org:10.0.0.5:1718000000.1234567:1718000000.1234567:sys
/// 1718000000.1300000,task.start,agent,main,task.000001,RUNNING,
/// 1718000000.2000000,END,agent,main,,,
/// ```
///
/// - The file is `<dir>/<name>.prof`, opened in append mode; every open
///   writes the header and a `sync_abs` line (as radical.utils does), whose
///   message is `<host>:<ip>:<t>:<t>:sys`, `<t>` being its time: the time
///   of the open, or the first event's if that is earlier (so the first
///   event is not before it: a scope's start is timed on entry, before a
///   lazily opened file exists). They reach the file with the
///   first event (or a flush or close), so
///   [`with_component`](Self::with_component) applies to them too.
/// - The host is the fully qualified host name as radical.utils writes it
///   (`socket.getfqdn()`), looked up in `/etc/hosts` only, without a DNS
///   query (opening never blocks): the kernel's host name
///   (`/proc/sys/kernel/hostname`, else `/etc/hostname`) is resolved to the
///   address of the first line that lists it, and that address back to the
///   *first* line for it, as the C library does; of that line's names, the
///   first dotted one, else the canonical (first) name. The host name
///   itself when no line lists it (`localhost` without one); where DNS
///   would answer, set it with [`with_host`](Self::with_host) or
///   `PROFILE_HOST`. The IPv4 address is the one the OS would use for an
///   outbound route (a UDP socket is connected, no packet is sent), or
///   `127.0.0.1` when there is none. radical.analytics corrects clocks per
///   `<host>:<ip>`, so both must be radical.utils' on the same host.
/// - When radical.utils' NTP cache exists (`.radical/utils/ntp.cache`
///   under `$RADICAL_BASE`, else `$HOME`, else `$PWD`), read when the sink
///   is created, the message is `<host>:<ip>:<t>:<t - offset>:ntp` as
///   radical.utils writes it, the offset being the cache's system time
///   minus its NTP time: radical.analytics then shifts this file's rows by
///   the same offset as radical.utils' profiles of the host. elide never
///   asks an NTP server itself, and uses a cache of any age (radical.utils
///   refreshes one older than 60 s; the last measured offset is the best
///   this host has). A cache that cannot be read or parsed gives one
///   warning and `sys`.
/// - `time` is epoch seconds with seven decimals; `event` the event name.
/// - `comp` is one name on every row, as radical.utils writes it: the
///   component set with [`with_component`](Self::with_component), else the
///   profile's name (for `PROFILE` in the environment, the dotted root
///   namespace of [`init_ns`](crate::init_ns), e.g. `radical.asyncflow`).
///   An event's own `comp` field overrides it for that row (radical.utils'
///   `prof(.., comp=..)`).
/// - `thread` is the thread's name, or elide's number for unnamed threads.
/// - `uid`, `state` and `msg` come from the fields of those names (empty if
///   absent). Every other field is appended to `msg` as `key=value`,
///   space-separated, in site order.
/// - Inside a field, `,` becomes `;` and control characters are escaped
///   (`\n`, `\r`, `\t`, `\u{..}`), so every line has exactly seven fields.
/// - [`close`](Self::close) (or dropping the sink) writes an `END` line,
///   flushes and fsyncs; [`flush`](Sink::flush) flushes and fsyncs.
///
/// Lines are buffered and each line reaches the file in one `write`, so
/// several processes appending to one file never split each other's lines.
///
/// Cargo feature `prof` (on by default).
#[derive(Debug)]
pub struct ProfSink {
    path: PathBuf,
    /// The `comp` column, cleaned.
    component: String,
    /// The `sync_abs` host set with `with_host`, cleaned.
    host: Option<String>,
    /// radical.utils' NTP offset, read at creation.
    ntp: Option<Offset>,
    file: Mutex<Option<Open>>,
}

/// An open profile.
#[derive(Debug)]
struct Open {
    out: BufWriter<File>,
    /// The time of the open and its thread, until the header is written.
    header: Option<(SystemTime, String)>,
}

impl ProfSink {
    /// Opens `<dir>/<name>.prof` for appending (creating `dir` if needed) and
    /// writes the header and the `sync_abs` line.
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("elide-doc-{}", std::process::id()));
    /// let sink = elide::sink::ProfSink::open(&dir, "agent.0")?;
    /// assert!(sink.path().ends_with("agent.0.prof"));
    /// sink.close()?;
    /// # std::fs::remove_dir_all(&dir).ok();
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn open(dir: impl AsRef<Path>, name: &str) -> io::Result<ProfSink> {
        if name.is_empty() || name.contains(['/', '\\']) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("profile name {name:?} must be non-empty and contain no path separator"),
            ));
        }
        let dir = dir.as_ref();
        let path = dir.join(format!("{name}.prof"));
        let file = crate::sink::open_append(&path)?;
        let t = SystemTime::now();
        let mut thread = String::new();
        thread_label(&mut Clean(&mut thread));
        let mut component = String::new();
        let _ = Clean(&mut component).write_str(name);
        Ok(ProfSink {
            path,
            component,
            host: None,
            ntp: ntp_cache::offset(),
            file: Mutex::new(Some(Open {
                out: BufWriter::with_capacity(64 * 1024, file),
                header: Some((t, thread)),
            })),
        })
    }

    /// Uses `comp` instead of the profile's name in the `comp` column of
    /// every row (the `sync_abs` and `END` lines too); an event's own
    /// `comp` field still wins for its row.
    pub fn with_component(mut self, comp: &str) -> ProfSink {
        self.component.clear();
        let _ = Clean(&mut self.component).write_str(comp);
        self
    }

    /// Uses `host` as the host of the `sync_abs` line instead of the name
    /// found in `/etc/hosts`: for hosts where DNS gives radical.utils'
    /// `socket.getfqdn()`, so radical.analytics applies that host's clock
    /// correction to this file. `,`, `:` and control characters are dropped.
    pub fn with_host(mut self, host: &str) -> ProfSink {
        self.host = Some(crate::os::host::clean(host));
        self
    }

    /// The file written.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether [`close`](Self::close) has run.
    pub fn is_closed(&self) -> bool {
        self.lock().is_some_and(|out| out.is_none())
    }

    /// Writes the `END` line, flushes and fsyncs, and closes the file. Later
    /// events are discarded; closing again does nothing.
    pub fn close(&self) -> io::Result<()> {
        let Some(mut open) = self.lock().and_then(|mut open| open.take()) else {
            return Ok(());
        };
        self.write_header(&mut open, None)?;
        let out = &mut open.out;
        let mut line = String::with_capacity(64);
        push_epoch_7(SystemTime::now(), &mut line);
        line.push_str(",END,");
        line.push_str(&self.component);
        line.push(',');
        thread_label(&mut Clean(&mut line));
        line.push_str(",,,\n");
        out.write_all(line.as_bytes())?;
        out.flush()?;
        out.get_ref().sync_all()
    }

    /// Writes the header and `sync_abs` line if they are still due, the
    /// latter no later than `first`, the time of the event that follows.
    fn write_header(&self, open: &mut Open, first: Option<SystemTime>) -> io::Result<()> {
        let Some((opened, thread)) = open.header.take() else {
            return Ok(());
        };
        let t = first.map_or(opened, |first| first.min(opened));
        let (found, ip) = host_and_ip();
        let host = self.host.as_ref().unwrap_or(found);
        let ntp = self.ntp.and_then(|off| off.ntp_time(t));
        let mut head = String::with_capacity(256);
        head.push_str(HEADER);
        head.push('\n');
        push_epoch_7(t, &mut head);
        let _ = write!(head, ",sync_abs,{},{thread},,,{host}:{ip}:", self.component);
        push_epoch_7(t, &mut head);
        head.push(':');
        push_epoch_7(ntp.unwrap_or(t), &mut head);
        head.push_str(if ntp.is_some() { ":ntp\n" } else { ":sys\n" });
        open.out.write_all(head.as_bytes())
    }

    /// The file (`None` inside once closed); `None` in a forked child if a
    /// thread of the parent held it at the fork.
    fn lock(&self) -> Option<MutexGuard<'_, Option<Open>>> {
        crate::os::process::lock(&self.file)
    }

    fn report(&self, e: &io::Error) {
        crate::stats::report_write_error(&self.path.display().to_string(), e);
    }

    /// Appends the line for `record` (with its `\n`) to `out`.
    fn render(&self, record: &Record<'_>, out: &mut String) {
        push_epoch_7(record.time(), out);
        out.push(',');
        prof_text(record.metadata().name(), out);
        out.push(',');
        match record.field("comp") {
            Some(v) => v.visit(&mut Clean(out)),
            None => out.push_str(&self.component),
        }
        out.push(',');
        record.write_thread_label(&mut Clean(out));
        for column in ["uid", "state"] {
            out.push(',');
            if let Some(v) = record.field(column) {
                v.visit(&mut Clean(out));
            }
        }
        out.push(',');
        let mut msg = String::new();
        if let Some(v) = record.field("msg") {
            let _ = write!(msg, "{v}");
        }
        let fields = record.fields();
        for (i, (k, v)) in fields.iter().enumerate() {
            let first = !fields[..i].iter().any(|(k2, _)| k2 == k);
            if first && COLUMNS.contains(k) {
                continue;
            }
            if !msg.is_empty() {
                msg.push(' ');
            }
            crate::format::write_plain_key(k, &mut msg);
            msg.push('=');
            crate::format::write_plain_value(v, &mut msg);
        }
        prof_text(&msg, out);
        out.push('\n');
    }

    /// Writes one event's line; `time` is the event's.
    fn write_line(&self, line: &str, time: SystemTime) {
        if let Some(open) = self.lock().as_mut().and_then(|o| o.as_mut()) {
            if let Err(e) = self
                .write_header(open, Some(time))
                .and_then(|()| open.out.write_all(line.as_bytes()))
            {
                self.report(&e);
            }
        }
    }
}

impl Sink for ProfSink {
    fn max_level(&self) -> LevelFilter {
        LevelFilter::Off
    }
    fn wants_telemetry(&self) -> bool {
        true
    }
    fn emit(&self, record: &Record<'_>) {
        // Format outside the lock, into a per-thread buffer.
        crate::format::with_line_buffer(|line| {
            self.render(record, line);
            self.write_line(line, record.time());
        });
    }
    fn flush(&self) {
        if let Some(open) = self.lock().as_mut().and_then(|o| o.as_mut()) {
            let res = self.write_header(open, None).and_then(|()| {
                open.out.flush()?;
                open.out.get_ref().sync_data()
            });
            if let Err(e) = res {
                self.report(&e);
            }
        }
    }
}

impl Drop for ProfSink {
    fn drop(&mut self) {
        if let Err(e) = self.close() {
            self.report(&e);
        }
    }
}

/// Writes text as one `.prof` field: `,` becomes `;`, control characters
/// are escaped.
struct Clean<'a>(&'a mut String);

impl fmt::Write for Clean<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        prof_text(s, self.0);
        Ok(())
    }
}

impl Visit for Clean<'_> {
    // Integers and texts written directly: the same text as `Display`.
    fn i64(&mut self, v: i64) {
        push_i64(v, self.0);
    }
    fn u64(&mut self, v: u64) {
        push_u64(v, self.0);
    }
    fn str(&mut self, v: &str) {
        prof_text(v, self.0);
    }
    fn display(&mut self, v: &dyn fmt::Display) {
        let _ = write!(self, "{v}");
    }
    fn debug(&mut self, v: &dyn fmt::Debug) {
        let _ = write!(self, "{v:?}");
    }
}

/// Host name and IPv4 address for `sync_abs`, looked up once per process.
fn host_and_ip() -> &'static (String, Ipv4Addr) {
    static HOST: OnceLock<(String, Ipv4Addr)> = OnceLock::new();
    HOST.get_or_init(|| {
        (
            crate::os::host::hostname(),
            crate::os::host::outbound_ipv4().unwrap_or(Ipv4Addr::LOCALHOST),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> crate::sink::scratch::Scratch {
        crate::sink::scratch::Scratch::dir(&format!("prof-{name}"))
    }

    /// A profile name is a file name: an empty one, or one with a path
    /// separator, is refused before anything is created.
    #[test]
    fn a_name_that_is_not_a_file_name_is_refused() {
        let dir = scratch("names");
        for name in ["", "a/b", "a\\b", "/abs"] {
            let err = ProfSink::open(&*dir, name).expect_err(name);
            assert_eq!(err.kind(), io::ErrorKind::InvalidInput, "{name:?}");
        }
        let left: Vec<_> = std::fs::read_dir(&*dir).unwrap().collect();
        assert!(left.is_empty(), "nothing created: {left:?}");
    }

    /// Each column holds its value's text, a `,` in it written as `;` and
    /// a line break escaped, so a line always has seven fields; integers,
    /// texts and `Display` values alike; other fields go to `msg`.
    #[test]
    fn columns_hold_their_values_cleaned() {
        use crate::record::test_event;
        use crate::record::value::Value;
        use std::time::Duration;
        let dir = scratch("columns");
        let sink = ProfSink::open(&*dir, "columns").unwrap();
        let shown = format_args!("x,y");
        let fields = [
            ("comp", Value::Str("agent,0")),
            ("uid", Value::U64(18_446_744_073_709_551_615)),
            ("state", Value::Str("RUN\nNING")),
            ("n", Value::I64(-3)),
            ("d", Value::Display(&shown)),
        ];
        let r = test_event(&fields, Duration::new(1_718_000_000, 123_456_789));
        let mut line = String::new();
        sink.render(&r, &mut line);
        assert_eq!(
            line,
            "1718000000.1234567,task.start,agent;0,4,18446744073709551615,RUN\\nNING,n=-3 d=x;y\n"
        );
        // The other kinds of value in the columns: `Display`, `i64`, `Debug`.
        let comp = format_args!("pilot,1");
        let fields = [
            ("comp", Value::Display(&comp)),
            ("uid", Value::I64(-7)),
            ("state", Value::Debug(&"DONE,\u{2028}")),
        ];
        let r = test_event(&fields, Duration::ZERO);
        line.clear();
        sink.render(&r, &mut line);
        assert_eq!(
            line,
            "0.0000000,task.start,pilot;1,4,-7,\"DONE;\\u{2028}\",\n"
        );
        let mut before = String::new();
        push_epoch_7(
            std::time::UNIX_EPOCH - std::time::Duration::new(2, 50),
            &mut before,
        );
        assert_eq!(before, "-2.0000000");
    }

    /// A profile whose writes fail (here a full device) counts a write
    /// error in `stats()` rather than losing events silently.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_failing_profile_is_counted_as_a_write_error() {
        let dir = scratch("full");
        if std::os::unix::fs::symlink("/dev/full", dir.join("full.prof")).is_err() {
            return;
        }
        let Ok(sink) = ProfSink::open(&*dir, "full") else {
            return; // no /dev/full here
        };
        crate::sink::assert_counts_a_write_error(&sink);
    }
}
