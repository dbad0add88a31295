//! The OTLP exporter against collectors in trouble, served here on
//! loopback: none at all, one that never answers, one that answers 503 or
//! 429 with `Retry-After`, 400, 413, garbage, or takes 5 s per request.
//! Each case runs twice, each time in a child process: `sink_child otlp-env
//! N` set up through `SINK_CHILD_LOG_TGT=otlp` (`LOG_TGT=otlp` in the
//! child's namespace), so the guard's drop and the exit handler run as in
//! an application; and `sink_child otlp-api N URL`, a sink built and
//! installed through the API, then removed and dropped. Per case: the child ends within the shutdown
//! timeout (5 s default) plus a generous margin, and the one summary line
//! accounts for every record: exported + failed + dropped = emitted. The
//! time from the last call to the process's end and the longest caller
//! call are printed, not asserted (this machine is shared); a healthy
//! collector is the control. The children run one at a time, so the
//! longest call is the exporter's and not the machine's load.
//! Run with `cargo test -p elide-tests --features otlp --test otlp_faults`.

#![cfg(feature = "otlp")]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::Command;
use std::time::{Duration, Instant};

use elide_tests::run_with_deadline;

/// The records each child emits: more than the exporter's buffer (8192)
/// and the queue before it together, so a full buffer that made callers
/// wait would show.
const EMITTED: u64 = 40_000;

/// Shutdown timeout (5 s) plus room for a slow, shared machine; the code
/// before this test took 32 to 86 s.
const DEADLINE: Duration = Duration::from_secs(20);

/// How a fault server answers each request.
#[derive(Clone, Copy, Debug)]
enum Fault {
    /// Nothing listens.
    Down,
    /// Takes the request and never answers.
    Silent,
    /// This status line and headers.
    Status(&'static str),
    /// Not HTTP.
    Garbage,
    /// 200, after 5 s.
    Slow,
    /// 200 at once: a healthy collector, the other cases' control (the
    /// longest call it sees is what the shared machine's load alone gives).
    Healthy,
}

/// Starts a server with `fault` on loopback; its URL.
fn serve(fault: Fault) -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", l.local_addr().unwrap());
    if matches!(fault, Fault::Down) {
        return url; // dropped: the port refuses connections
    }
    std::thread::spawn(move || {
        for c in l.incoming().flatten() {
            std::thread::spawn(move || answer(c, fault));
        }
    });
    url
}

/// Reads one request (head and body), answers as `fault` says.
fn answer(mut c: TcpStream, fault: Fault) {
    let _ = c.set_read_timeout(Some(Duration::from_secs(60)));
    let mut buf = Vec::new();
    let mut chunk = [0; 64 * 1024];
    let body_len = loop {
        match c.read(&mut chunk) {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
            let len: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .map_or(0, |v| v.trim().parse().unwrap_or(0));
            break end + 4 + len;
        }
    };
    while buf.len() < body_len {
        match c.read(&mut chunk) {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
    let reply = match fault {
        Fault::Down => unreachable!(),
        Fault::Silent => {
            std::thread::sleep(Duration::from_secs(120));
            return;
        }
        Fault::Status(line) => format!("{line}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"),
        Fault::Garbage => "SSH-2.0-OpenSSH_9.6\r\n".to_owned(),
        Fault::Slow => {
            std::thread::sleep(Duration::from_secs(5));
            "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".to_owned()
        }
        Fault::Healthy => {
            "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".to_owned()
        }
    };
    let _ = c.write_all(reply.as_bytes());
}

/// What one child did.
struct Run {
    took: Duration,
    /// From the last call to the process's end: the guard's drop, the exit
    /// handler, the sink's drop.
    end: Duration,
    longest_call_us: u64,
    /// exported, failed, dropped from the summary line (none: nothing lost).
    summary: Option<(u64, u64, u64)>,
    stderr: String,
}

/// How the child sets its exporter up.
#[derive(Clone, Copy, Debug)]
enum Setup {
    /// `LOG_TGT=otlp`: the guard's drop and the exit handler end it.
    Env,
    /// `OtlpSink::builder(..).build()`, installed, then removed and dropped.
    Api,
}

fn run(url: &str, setup: Setup) -> Run {
    let t = Instant::now();
    let mut c = Command::new(env!("CARGO_BIN_EXE_sink_child"));
    match setup {
        Setup::Env => c
            .args(["otlp-env", &EMITTED.to_string()])
            // The child's own namespace (its executable's name).
            .env("SINK_CHILD_LOG_TGT", "otlp")
            .env("SINK_CHILD_LOG_LVL", "info")
            .env("OTEL_EXPORTER_OTLP_ENDPOINT", url),
        Setup::Api => c.args(["otlp-api", &EMITTED.to_string(), url]),
    };
    let out = run_with_deadline(&mut c, DEADLINE);
    let took = t.elapsed();
    let exited = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stdout}{stderr}");
    let longest_call_us = stdout
        .split_whitespace()
        .find_map(|w| w.strip_prefix("longest_call_us="))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no longest call in {stdout:?}"));
    let emitted_ns: u128 = stdout
        .split_whitespace()
        .find_map(|w| w.strip_prefix("emitted_unix_ns="))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no end of emission in {stdout:?}"));
    let end = Duration::from_nanos(exited.saturating_sub(emitted_ns) as u64);
    let installed: Vec<&str> = stdout
        .split_whitespace()
        .filter_map(|w| w.strip_prefix("installed="))
        .collect();
    assert_eq!(installed, [url], "the env-built sink is found: {stdout}");
    // The summary: at exit for the env-built sink, when it is dropped for
    // the API's.
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains(": at exit: ") || l.contains(": shut down: "))
        .collect();
    assert!(lines.len() <= 1, "said once: {stderr}");
    let summary = lines.first().map(|l| {
        // "... at exit: exported E (L logs, S spans), failed F, dropped D"
        // (or "shut down:")
        let num = |key: &str| -> u64 {
            let at = l.find(key).unwrap_or_else(|| panic!("{key} in {l}")) + key.len();
            l[at..]
                .split(|c: char| !c.is_ascii_digit())
                .next()
                .unwrap()
                .parse()
                .unwrap()
        };
        (num("exported "), num("failed "), num("dropped "))
    });
    Run {
        took,
        end,
        longest_call_us,
        summary,
        stderr,
    }
}

/// Every fault, each in its own child, one child at a time.
#[test]
fn every_fault_ends_in_time_with_every_record_accounted_for() {
    let cases = [
        ("down", Fault::Down),
        ("silent", Fault::Silent),
        (
            "503 Retry-After",
            Fault::Status("HTTP/1.1 503 X\r\nRetry-After: 1"),
        ),
        (
            "429 Retry-After",
            Fault::Status("HTTP/1.1 429 X\r\nRetry-After: 2"),
        ),
        ("400", Fault::Status("HTTP/1.1 400 Bad Request")),
        ("413", Fault::Status("HTTP/1.1 413 Too Large")),
        ("garbage", Fault::Garbage),
        ("5 s per request", Fault::Slow),
        ("healthy", Fault::Healthy),
    ];
    // One child at a time: with all eighteen at once on a small machine,
    // the load alone made every caller's longest call (the control's too)
    // 120-350 ms, which said nothing about the exporter.
    for (name, fault, setup) in cases
        .iter()
        .flat_map(|&(name, fault)| [Setup::Env, Setup::Api].map(|setup| (name, fault, setup)))
    {
        let r = run(&serve(fault), setup);
        println!(
            "{name:>16} {setup:?}: ran {:>6.2?}, last call to exit {:>6.2?}, longest call {:>7} us, \
             (exported, failed, dropped) {:?}",
            r.took, r.end, r.longest_call_us, r.summary
        );
        let Some((exported, failed, dropped)) = r.summary else {
            // Nothing lost: no summary line.
            assert!(
                matches!(name, "healthy" | "5 s per request"),
                "{name}: records were lost, and not said: {}",
                r.stderr
            );
            continue;
        };
        assert_eq!(
            exported + failed + dropped,
            EMITTED,
            "{name}: exported + failed + dropped = emitted: {}",
            r.stderr
        );
        if !matches!(name, "5 s per request" | "healthy") {
            assert_eq!(exported, 0, "{name}: the collector took nothing");
        }
    }
}
