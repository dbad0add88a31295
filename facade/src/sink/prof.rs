//! The radical.utils `.prof` sink: seven comma-separated fields per line.

use std::fmt::{self, Write as _};
use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::net::{Ipv4Addr, UdpSocket};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::SystemTime;

use super::profiles::{thread_label, write_epoch_7};
use crate::record::Record;
use crate::sink::Sink;
use crate::LevelFilter;

/// The header line's field names, in line order.
pub(crate) const HEADER: &str = "#time,event,comp,thread,uid,state,msg";

/// Fields that fill a column of their own instead of going into `msg`.
const COLUMNS: [&str; 4] = ["uid", "state", "msg", "comp"];

/// Writes telemetry events in the radical.utils profile layout, readable by
/// radical.analytics:
///
/// ```text
/// #time,event,comp,thread,uid,state,msg
/// 1718000000.1234567,sync_abs,agent,main,,,node01:10.0.0.5:1718000000.1234567:1718000000.1234567:sys
/// 1718000000.1300000,task.start,my_app::engine,main,task.000001,RUNNING,
/// 1718000000.2000000,END,agent,main,,,
/// ```
///
/// - The file is `<dir>/<name>.prof`, opened in append mode; every open
///   writes the header and a `sync_abs` line (as radical.utils does), whose
///   message is `<host>:<ip>:<t>:<t>:sys`. The host is the kernel's host name
///   (`/proc/sys/kernel/hostname`, else `/etc/hostname`, else `localhost`);
///   the IPv4 address is the one the OS would use for an outbound route
///   (a UDP socket is connected, no packet is sent), or `127.0.0.1` when
///   there is none.
/// - `time` is epoch seconds with seven decimals; `event` the event name.
/// - `comp` is the event's `comp` field if it has one, else the component
///   set with [`with_component`](Self::with_component), else the site's
///   target (its module path unless the site says `target: ..`).
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
#[derive(Debug)]
pub struct ProfSink {
    name: String,
    path: PathBuf,
    component: Option<String>,
    file: Mutex<Option<BufWriter<File>>>,
}

impl ProfSink {
    /// Opens `<dir>/<name>.prof` for appending (creating `dir` if needed) and
    /// writes the header and the `sync_abs` line.
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("elide-doc-{}", std::process::id()));
    /// let sink = elide::telemetry::ProfSink::create(&dir, "agent.0")?;
    /// assert!(sink.path().ends_with("agent.0.prof"));
    /// sink.close()?;
    /// # std::fs::remove_dir_all(&dir).ok();
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn create(dir: impl AsRef<Path>, name: &str) -> io::Result<ProfSink> {
        if name.is_empty() || name.contains(['/', '\\']) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("profile name {name:?} must be non-empty and contain no path separator"),
            ));
        }
        let dir = dir.as_ref();
        let path = dir.join(format!("{name}.prof"));
        let file = crate::sink::open_append(&path)?;
        let mut out = BufWriter::with_capacity(64 * 1024, file);
        let mut head = String::with_capacity(256);
        head.push_str(HEADER);
        head.push('\n');
        let mut t = String::new();
        write_epoch_7(SystemTime::now(), &mut t);
        let (host, ip) = host_and_ip();
        head.push_str(&t);
        head.push_str(",sync_abs,");
        let _ = Clean(&mut head).write_str(name);
        head.push(',');
        thread_label(&mut Clean(&mut head));
        let _ = writeln!(head, ",,,{host}:{ip}:{t}:{t}:sys");
        out.write_all(head.as_bytes())?;
        // To the OS now: a process that dies early still leaves a header.
        out.flush()?;
        Ok(ProfSink {
            name: name.to_owned(),
            path,
            component: None,
            file: Mutex::new(Some(out)),
        })
    }

    /// Uses `comp` as the component of every event without a `comp` field,
    /// instead of the site's target.
    pub fn with_component(mut self, comp: &str) -> ProfSink {
        let mut clean = String::new();
        let _ = Clean(&mut clean).write_str(comp);
        self.component = Some(clean);
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
        let Some(mut out) = self.lock().and_then(|mut out| out.take()) else {
            return Ok(());
        };
        let mut line = String::with_capacity(64);
        write_epoch_7(SystemTime::now(), &mut line);
        line.push_str(",END,");
        let _ = Clean(&mut line).write_str(self.component.as_deref().unwrap_or(&self.name));
        line.push(',');
        thread_label(&mut Clean(&mut line));
        line.push_str(",,,\n");
        out.write_all(line.as_bytes())?;
        out.flush()?;
        out.get_ref().sync_all()
    }

    /// The file (`None` inside once closed); `None` in a forked child if a
    /// thread of the parent held it at the fork.
    fn lock(&self) -> Option<MutexGuard<'_, Option<BufWriter<File>>>> {
        crate::process::lock(&self.file)
    }

    fn report(&self, e: &io::Error) {
        crate::report_write_error(&self.path.display().to_string(), e);
    }

    /// Appends the line for `record` (with its `\n`) to `out`.
    fn render(&self, record: &Record<'_>, out: &mut String) {
        write_epoch_7(record.time(), out);
        out.push(',');
        let _ = Clean(out).write_str(record.metadata().name());
        out.push(',');
        match (record.field("comp"), &self.component) {
            (Some(v), _) => {
                let _ = write!(Clean(out), "{v}");
            }
            (None, Some(c)) => out.push_str(c),
            (None, None) => {
                let _ = Clean(out).write_str(record.target());
            }
        }
        out.push(',');
        record.write_thread_label(&mut Clean(out));
        for column in ["uid", "state"] {
            out.push(',');
            if let Some(v) = record.field(column) {
                let _ = write!(Clean(out), "{v}");
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
            msg.push_str(k);
            msg.push('=');
            crate::format::write_plain_value(v, &mut msg);
        }
        let _ = Clean(out).write_str(&msg);
        out.push('\n');
    }

    fn write_line(&self, line: &str) {
        if let Some(out) = self.lock().as_mut().and_then(|o| o.as_mut()) {
            if let Err(e) = out.write_all(line.as_bytes()) {
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
            self.write_line(line);
        });
    }
    fn flush(&self) {
        if let Some(out) = self.lock().as_mut().and_then(|o| o.as_mut()) {
            if let Err(e) = out.flush().and_then(|()| out.get_ref().sync_data()) {
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
        for (i, part) in s.split(',').enumerate() {
            if i > 0 {
                self.0.push(';');
            }
            crate::format::Escaped(self.0).write_str(part)?;
        }
        Ok(())
    }
}

/// Host name and IPv4 address for `sync_abs`, looked up once per process.
fn host_and_ip() -> &'static (String, Ipv4Addr) {
    static HOST: OnceLock<(String, Ipv4Addr)> = OnceLock::new();
    HOST.get_or_init(|| (hostname(), outbound_ipv4().unwrap_or(Ipv4Addr::LOCALHOST)))
}

pub(crate) fn hostname() -> String {
    for file in ["/proc/sys/kernel/hostname", "/etc/hostname"] {
        if let Ok(text) = fs::read_to_string(file) {
            let name: String = text
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty() && !l.starts_with('#'))
                .unwrap_or("")
                .chars()
                // The sync_abs message is split on `:`; keep it parseable.
                .filter(|c| !matches!(c, ',' | ':') && !c.is_control())
                .collect();
            if !name.is_empty() {
                return name;
            }
        }
    }
    "localhost".to_owned()
}

/// The local address of a UDP socket connected towards a documentation
/// address (192.0.2.1, never routed on the internet): connecting only asks
/// the kernel for a route, nothing is sent.
fn outbound_ipv4() -> Option<Ipv4Addr> {
    let socket = UdpSocket::bind((Ipv4Addr::UNSPECIFIED, 0)).ok()?;
    socket.connect((Ipv4Addr::new(192, 0, 2, 1), 9)).ok()?;
    match socket.local_addr().ok()?.ip() {
        std::net::IpAddr::V4(ip) if !ip.is_unspecified() => Some(ip),
        _ => None,
    }
}
