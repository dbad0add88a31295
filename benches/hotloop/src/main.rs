//! `cargo run --release -p elide-benches`: the hot-loop residual cost of
//! every kind of elide site, next to `log` and `tracing` doing the same job,
//! and spdlog-rs where it has the same kind of site (`spdlog_peer.rs`).
//!
//! Each variant is an `#[inline(never)]` loop `for i in 0..n { let x =
//! black_box(i); <site> }` run in a child process of its own. The harness
//! reports, per variant: ns per iteration (median of the rounds), instructions
//! per iteration from callgrind (two runs with different `n`, subtracted, so
//! start-up and first-hit costs cancel), the cost over the bare loop of the
//! same build, and elide's cost as a ratio of `log`'s, `tracing`'s and
//! spdlog-rs's in the same row. The statically-off rows need other cargo
//! features than the rest (features unify within a build), so they come
//! from static-off/, built here twice: release (opt-level 3) and dev
//! (opt-level 0).
//!
//! Flags: `--csv PATH` (default `target/elide-bench.csv`), `--svg PATH` (the
//! chart, default `target/elide-bench.svg`), `--rounds N` (>= 5,
//! default 11), `--round-ms MS` (default 20), `--filter TEXT` (variants whose
//! name or row contains TEXT), `--no-callgrind`, `--no-static`.

mod chart;
mod child;
mod consumers;
mod report;
mod sites;
mod spdlog_peer;
#[path = "../../subprocess.rs"]
mod subprocess;
#[path = "../../svg.rs"]
mod svg;
mod variants;
mod workload;

use std::path::{Path, PathBuf};
use std::process::Command;

use report::Measured;
use subprocess::{child, run, valgrind_available};

/// Iteration counts of the two callgrind runs; the difference is measured.
const CG_ITERS: (u64, u64) = (2_000, 12_000);

const USAGE: &str = "usage: cargo run --release -p elide-benches [-- FLAGS]
  --csv PATH      where to write the CSV (default target/elide-bench.csv)
  --svg PATH      where to write the chart (default target/elide-bench.svg)
  --rounds N      timed rounds per variant, at least 5 (default 11)
  --round-ms MS   length of one round (default 20)
  --filter TEXT   only variants whose name or row contains TEXT (plus the bare loops)
  --no-callgrind  skip instruction counts
  --no-static     skip the statically-off builds";

struct Options {
    csv: PathBuf,
    svg: PathBuf,
    rounds: u64,
    round_ms: u64,
    filter: Option<String>,
    callgrind: bool,
    statics: bool,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if child::serve(&args, variants::VARIANTS, "") {
        return;
    }
    let opts = parse(&args);
    if cfg!(debug_assertions) {
        eprintln!("warning: built without --release; the main rows measure opt-level 0");
    }
    let callgrind = opts.callgrind && valgrind_available();
    if opts.callgrind && !callgrind {
        eprintln!("valgrind not found: instructions per iteration are left out");
    }

    let mut bins = vec![std::env::current_exe().expect("own path")];
    if opts.statics {
        bins.extend(build_static_off());
    }

    let mut measured = Vec::new();
    for bin in &bins {
        for (name, row, lib, hot) in list(bin) {
            let wanted = opts.filter.as_ref().map_or(true, |f| {
                name == "bare" || name.contains(f.as_str()) || row.contains(f.as_str())
            });
            if !wanted {
                continue;
            }
            eprintln!("timing    {row} / {lib}");
            let (ns, bare_ns) = time(bin, &name, &opts);
            measured.push(Measured {
                bin: bin.clone(),
                name,
                row,
                lib,
                hot,
                ns,
                bare_ns,
                ir: None,
            });
        }
    }
    if callgrind {
        for m in &mut measured {
            eprintln!("callgrind {} / {}", m.row, m.lib);
            m.ir = instructions(&m.bin, &m.name, &m.hot);
        }
    }

    let table = report::table(&measured, callgrind);
    println!("{}", report::header(&opts_line(&opts, callgrind)));
    println!("{}", table.markdown());
    let unit = if callgrind { "instructions" } else { "ns" };
    let note = format!(
        "{} CPUs. Release build, fat LTO; statically-off rows from separate builds at the row's opt-level. 0 = no cost over the bare loop.",
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    let chart = chart::svg(&table.bars(), unit, &note);
    for (path, text) in [(&opts.csv, table.csv()), (&opts.svg, chart)] {
        if let Some(dir) = path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        match std::fs::write(path, text) {
            Ok(()) => eprintln!("wrote {}", path.display()),
            Err(e) => eprintln!("could not write {}: {e}", path.display()),
        }
    }
}

fn parse(args: &[String]) -> Options {
    let mut o = Options {
        csv: target_root().join("elide-bench.csv"),
        svg: target_root().join("elide-bench.svg"),
        rounds: 11,
        round_ms: 20,
        filter: None,
        callgrind: true,
        statics: true,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |flag: &str| {
            it.next().cloned().unwrap_or_else(|| {
                eprintln!("{flag} needs a value");
                std::process::exit(2)
            })
        };
        let number = |flag: &str, v: String| {
            v.parse::<u64>().unwrap_or_else(|_| {
                eprintln!("{flag} takes a number, got {v:?}");
                std::process::exit(2)
            })
        };
        match a.as_str() {
            "--csv" => o.csv = value(a).into(),
            "--svg" => o.svg = value(a).into(),
            "--rounds" => o.rounds = number(a, value(a)).max(5),
            "--round-ms" => o.round_ms = number(a, value(a)).max(1),
            "--filter" => o.filter = Some(value(a)),
            "--no-callgrind" => o.callgrind = false,
            "--no-static" => o.statics = false,
            "--help" | "-h" => {
                println!("{USAGE}");
                std::process::exit(0)
            }
            _ => {
                eprintln!("unknown argument {a:?}\n{USAGE}");
                std::process::exit(2)
            }
        }
    }
    o
}

fn opts_line(o: &Options, callgrind: bool) -> String {
    format!(
        "rounds: {} of ~{} ms each (median shown); instructions: {}",
        o.rounds,
        o.round_ms,
        if callgrind {
            format!(
                "callgrind, ({} - {}) iterations, collected inside the loop function",
                CG_ITERS.1, CG_ITERS.0
            )
        } else {
            "not measured".to_owned()
        }
    )
}

/// The workspace's target directory (or `CARGO_TARGET_DIR`).
fn target_root() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(d) => d.into(),
        None => {
            let t = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target");
            std::fs::canonicalize(&t).unwrap_or(t)
        }
    }
}

/// Builds static-off/ in release and dev; returns the binaries that built.
fn build_static_off() -> Vec<PathBuf> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("static-off/Cargo.toml");
    let target = target_root().join("static-off");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut out = Vec::new();
    for (profile, dir) in [("release", "release"), ("dev", "debug")] {
        eprintln!("building  static-off/ ({profile} profile)");
        let ok = Command::new(&cargo)
            .args(["build", "--quiet", "--profile", profile, "--manifest-path"])
            .arg(&manifest)
            .arg("--target-dir")
            .arg(&target)
            .status()
            .is_ok_and(|s| s.success());
        if ok {
            out.push(target.join(dir).join("elide-static-off"));
        } else {
            eprintln!("static-off/ did not build ({profile}): its rows are left out");
        }
    }
    out
}

fn list(bin: &Path) -> Vec<(String, String, String, String)> {
    let mut c = child(bin);
    c.arg("--list");
    String::from_utf8_lossy(&run(c).stdout)
        .lines()
        .filter_map(|l| {
            let mut f = l.split('\t').map(str::to_owned);
            Some((f.next()?, f.next()?, f.next()?, f.next()?))
        })
        .collect()
}

/// ns per iteration of each round: the variant's and the bare loop's.
fn time(bin: &Path, name: &str, o: &Options) -> (Vec<f64>, Vec<f64>) {
    let mut c = child(bin);
    c.args(["--child", "time", name])
        .arg(o.round_ms.to_string())
        .arg(o.rounds.to_string());
    String::from_utf8_lossy(&run(c).stdout)
        .lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace().map(|v| v.parse::<f64>().ok());
            Some((f.next()??, f.next()??))
        })
        .unzip()
}

/// Instructions collected inside the loop function for `n` iterations.
fn collected(bin: &Path, name: &str, hot: &str, n: u64) -> Option<u64> {
    // Exactly the loop function: a pattern like `*::hot_*` would also match
    // its closures (`hot_x::{{closure}}`), toggling collection off inside a
    // site's cold path.
    let n = n.to_string();
    subprocess::callgrind(
        bin,
        Some(&format!("*::{hot}")),
        &["--child", "count", name, &n],
    )
    .0
}

/// Instructions per iteration: the difference of two runs, so start-up,
/// set-up and the first hit (which resolves the site) cancel.
fn instructions(bin: &Path, name: &str, hot: &str) -> Option<f64> {
    let mut hot = hot;
    let mut b = collected(bin, name, hot, CG_ITERS.1)?;
    if b == 0 {
        // Identical loop functions (the statically-off ones: empty loops)
        // are merged under one name; any `hot_` function is the same code,
        // and such a build has no site closures to exclude.
        hot = "hot_*";
        b = collected(bin, name, hot, CG_ITERS.1)?;
    }
    let a = collected(bin, name, hot, CG_ITERS.0)?;
    if b == 0 {
        eprintln!("callgrind collected nothing for {name}: the loop function was not found");
        return None;
    }
    Some((b as f64 - a as f64) / (CG_ITERS.1 - CG_ITERS.0) as f64)
}
