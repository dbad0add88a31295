//! OTLP export side by side in one run: elide's `OtlpSink` beside
//! `tracing` + `opentelemetry-appender-tracing` + `opentelemetry_sdk`'s
//! batch log processor + `opentelemetry-otlp` (HTTP/protobuf), both sending
//! `info!("task {} done in {} us", id, us)` to the same OTLP/HTTP receiver
//! on loopback (`tests/tests/otlp_receiver/mod.rs`, run by this process; it decodes
//! every request with the official protocol types).
//!
//! Rows, for each library, each measurement in a child process of its own
//! (`child.rs`):
//! - caller cost: instructions per call from callgrind (the loop function
//!   collected, so the exporter's threads are not counted; two runs of
//!   different lengths subtracted) and ns per call (median of `--rounds`
//!   loops of `--calls` calls, queue emptied between rounds);
//! - export cost: instructions per record of the whole child process, all
//!   threads (caller, queue, conversion, encoding, HTTP), from callgrind
//!   runs of two burst lengths subtracted;
//! - export throughput: `--records` records sent as fast as the callers
//!   go, by 1 and by 4 threads, counted at the receiver: records per second
//!   from the first call to the arrival of the last record, median of
//!   `--bursts` bursts (the libraries alternate); and the mean
//!   size of one encoded record (elide adds thread and code attributes).
//!
//! `cargo run --release --manifest-path benches/otlp/Cargo.toml -- [--calls N]
//! [--rounds R] [--records N] [--bursts K] [--no-callgrind]`

mod child;
mod exporters;
#[allow(dead_code)] // the benchmark reads only the log records
#[path = "../../../tests/tests/otlp_receiver/mod.rs"]
mod otlp_receiver;
#[path = "../../subprocess.rs"]
mod subprocess;

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use opentelemetry_proto::tonic::common::v1::any_value;
use otlp_receiver::{Received, Receiver};
use prost::Message;

/// Loop lengths of the two callgrind runs; the difference is measured.
const CG_CALLS: (u64, u64) = (2_000, 12_000);
/// Burst lengths of the two whole-process callgrind runs.
const CG_RECORDS: (u64, u64) = (10_000, 50_000);
const LIBS: [(&str, &str); 2] = [("elide", "elide OtlpSink"), ("peer", "tracing + OTel SDK")];

struct Options {
    calls: u64,
    rounds: u64,
    records: u64,
    bursts: u64,
    callgrind: bool,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--child") {
        child::run(&args[1..]);
        return;
    }
    let opts = parse(&args);
    if cfg!(debug_assertions) {
        eprintln!("warning: built without --release");
    }
    let got: Arc<Mutex<Received>> = Arc::default();
    let rx = Receiver::start(0, got.clone());
    let endpoint = rx.endpoint();
    let me = std::env::current_exe().expect("own path");
    let callgrind = opts.callgrind && subprocess::valgrind_available();
    if opts.callgrind && !callgrind {
        eprintln!("valgrind not found: instructions per call are left out");
    }

    let mut rows: Vec<(String, [String; 2], Option<f64>)> = Vec::new();
    let mut push = |name: String, v: [f64; 2], fmt: fn(f64) -> String| {
        let ratio = (v[1] > 0.0).then(|| v[0] / v[1]);
        rows.push((name, v.map(fmt), ratio));
    };

    if callgrind {
        let ir = LIBS.map(|(lib, _)| {
            eprintln!("callgrind {lib}");
            instructions(&me, lib, &endpoint, &got, false)
        });
        push("caller: instructions per call".into(), ir, |v| {
            format!("{v:.0}")
        });
        let all = LIBS.map(|(lib, _)| {
            eprintln!("callgrind {lib}, whole process");
            instructions(&me, lib, &endpoint, &got, true)
        });
        push(
            "export: instructions per record, all threads".into(),
            all,
            |v| format!("{v:.0}"),
        );
    }
    let ns = LIBS.map(|(lib, _)| {
        eprintln!("timing    {lib}");
        let out = run_child(&me, &["caller", lib, &endpoint], &[opts.calls, opts.rounds]);
        let expected = child::WARM + opts.calls * opts.rounds;
        check_delivered(lib, &got, expected, &out);
        median(out.lines().filter_map(|l| l.parse().ok()).collect())
    });
    push(
        format!(
            "caller: ns per call (median of {} loops of {})",
            opts.rounds,
            thousands(opts.calls)
        ),
        ns,
        |v| format!("{v:.0}"),
    );
    let mut bytes = [0.0; 2];
    for threads in [1, 4] {
        // Bursts alternate between the libraries, so a change in machine
        // load hits both; the median is shown.
        let mut rates = [Vec::new(), Vec::new()];
        for _ in 0..opts.bursts {
            for (i, (lib, _)) in LIBS.iter().enumerate() {
                eprintln!("burst     {lib}, {threads} threads");
                let (rate, b) = throughput(&me, lib, &endpoint, &got, opts.records, threads);
                rates[i].push(rate);
                bytes[i] = b;
            }
        }
        push(
            format!(
                "export: records/s end to end, {} records, {threads} thread{} (median of {})",
                thousands(opts.records),
                if threads == 1 { "" } else { "s" },
                opts.bursts
            ),
            rates.map(median),
            |v| thousands(v as u64),
        );
    }
    push("payload: bytes per encoded LogRecord".into(), bytes, |v| {
        format!("{v:.0}")
    });
    rx.stop();

    println!(
        "OTLP export, one run, {} CPUs, release build (fat LTO); receiver on loopback.\n",
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    println!("| row | {} | {} | elide / peer |", LIBS[0].1, LIBS[1].1);
    println!("|---|---:|---:|---:|");
    for (name, [a, b], ratio) in rows {
        let r = ratio.map_or("-".into(), |r| format!("{r:.2}"));
        println!("| {name} | {a} | {b} | {r} |");
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn parse(args: &[String]) -> Options {
    let mut o = Options {
        calls: 10_000,
        rounds: 11,
        records: 100_000,
        bursts: 5,
        callgrind: true,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut num = || -> u64 {
            it.next()
                .and_then(|v| v.parse().ok())
                .filter(|&v| v > 0)
                .unwrap_or_else(|| usage(&format!("{a} needs a positive number")))
        };
        match a.as_str() {
            "--calls" => o.calls = num(),
            "--rounds" => o.rounds = num(),
            "--records" => o.records = num(),
            "--bursts" => o.bursts = num(),
            "--no-callgrind" => o.callgrind = false,
            other => usage(&format!("unknown flag {other}")),
        }
    }
    o
}

fn usage(msg: &str) -> ! {
    eprintln!(
        "{msg}\nusage: elide-bench-otlp [--calls N] [--rounds R] [--records N] [--bursts K] [--no-callgrind]"
    );
    std::process::exit(2)
}

fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn run_child(me: &Path, words: &[&str], nums: &[u64]) -> String {
    let mut c = subprocess::child(me);
    c.arg("--child").args(words);
    c.args(nums.iter().map(u64::to_string));
    String::from_utf8_lossy(&subprocess::run(c).stdout).into_owned()
}

/// Waits (a bounded time) until the receiver holds `expected` records,
/// checks one body, and empties it for the next measurement.
fn check_delivered(lib: &str, got: &Mutex<Received>, expected: u64, out: &str) -> Received {
    let mut waited = Duration::ZERO;
    while (got.lock().unwrap().logs.len() as u64) < expected && waited < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(10));
        waited += Duration::from_millis(10);
    }
    let g = std::mem::take(&mut *got.lock().unwrap());
    let lost = out.lines().find(|l| l.starts_with("lost ")).unwrap_or("");
    if g.logs.len() as u64 != expected {
        eprintln!(
            "{lib}: the receiver got {} records of {expected} ({lost})",
            g.logs.len()
        );
    }
    match g
        .logs
        .last()
        .and_then(|(_, l)| l.body.as_ref()?.value.as_ref())
    {
        Some(any_value::Value::StringValue(s)) if s.starts_with("task ") && s.ends_with(" us") => {}
        other => eprintln!("{lib}: unexpected body {other:?}"),
    }
    g
}

/// Records per second from the burst's start to the last arrival, and the
/// mean size of one encoded log record (the attributes each library adds).
fn throughput(
    me: &Path,
    lib: &str,
    endpoint: &str,
    got: &Mutex<Received>,
    records: u64,
    threads: u64,
) -> (f64, f64) {
    let out = run_child(me, &["burst", lib, endpoint], &[records, threads]);
    let g = check_delivered(lib, got, child::WARM + records, &out);
    let start: u128 = out
        .lines()
        .find_map(|l| l.strip_prefix("start ")?.parse().ok())
        .expect("the child prints its start");
    let end = g.last_logs.map_or(0, child::unix_ns);
    let secs = end.saturating_sub(start) as f64 / 1e9;
    let bytes: usize = g.logs.iter().map(|(_, l)| l.encoded_len()).sum();
    let n = g.logs.len().max(1);
    let rate = (n as u64).saturating_sub(child::WARM) as f64 / secs;
    (rate, bytes as f64 / n as f64)
}

/// Instructions of `lib` under callgrind for `n` calls: inside the loop
/// function only (`count` mode), or of the whole process, all threads
/// (`burst` mode, one calling thread).
fn collected(
    me: &Path,
    lib: &str,
    endpoint: &str,
    got: &Mutex<Received>,
    n: u64,
    whole: bool,
) -> u64 {
    let n_text = n.to_string();
    let (toggle, args) = if whole {
        (None, vec!["--child", "burst", lib, endpoint, &n_text, "1"])
    } else {
        let toggle = format!("*::hot_{lib}");
        (
            Some(toggle),
            vec!["--child", "count", lib, endpoint, &n_text],
        )
    };
    let (total, out) = subprocess::callgrind(me, toggle.as_deref(), &args);
    check_delivered(
        lib,
        got,
        child::WARM + n,
        &String::from_utf8_lossy(&out.stdout),
    );
    total.unwrap_or_else(|| std::process::exit(1))
}

/// Instructions per call: two runs subtracted, so set-up and warm-up cancel.
fn instructions(me: &Path, lib: &str, endpoint: &str, got: &Mutex<Received>, whole: bool) -> f64 {
    let calls = if whole { CG_RECORDS } else { CG_CALLS };
    let b = collected(me, lib, endpoint, got, calls.1, whole);
    let a = collected(me, lib, endpoint, got, calls.0, whole);
    (b as f64 - a as f64) / (calls.1 - calls.0) as f64
}
