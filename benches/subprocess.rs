//! What the benchmark harnesses that measure in child processes share:
//! a child command with a clean environment, running it to the end, and
//! counting a child's instructions under callgrind. Included by the
//! hot-loop and OTLP benchmarks with `#[path]`.

use std::path::Path;
use std::process::{Command, Output, Stdio};

/// A child command with a clean environment: no `RUST_LOG`, no RADICAL or
/// OTEL variables, nothing of the caller's configuration leaks into a row.
pub(crate) fn child(program: &Path) -> Command {
    let mut c = Command::new(program);
    c.env_clear();
    for keep in ["PATH", "HOME", "TMPDIR", "VALGRIND_LIB"] {
        if let Some(v) = std::env::var_os(keep) {
            c.env(keep, v);
        }
    }
    c.stdin(Stdio::null());
    c
}

/// Runs `c` to the end; a child that cannot start or fails ends the
/// harness with its stderr.
pub(crate) fn run(mut c: Command) -> Output {
    let out = c.output().unwrap_or_else(|e| {
        eprintln!("cannot run {c:?}: {e}");
        std::process::exit(1)
    });
    if !out.status.success() {
        eprintln!(
            "{c:?} failed ({}):\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        std::process::exit(1)
    }
    out
}

/// Whether `valgrind` can be run.
pub(crate) fn valgrind_available() -> bool {
    Command::new("valgrind")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Runs `bin args` under callgrind, collecting only inside functions that
/// match `toggle` (callgrind's `--toggle-collect` pattern; collection is
/// per thread, so other threads' work is not counted), or everything when
/// `toggle` is `None`. Returns the instructions collected (`None`, said on
/// stderr, if callgrind printed no total) and the child's output.
pub(crate) fn callgrind(bin: &Path, toggle: Option<&str>, args: &[&str]) -> (Option<u64>, Output) {
    let out_file = std::env::temp_dir().join(format!("elide-bench-cg.{}.out", std::process::id()));
    let mut c = child(Path::new("valgrind"));
    c.arg("--tool=callgrind");
    if let Some(toggle) = toggle {
        c.arg(format!("--toggle-collect={toggle}"));
    }
    c.arg(format!("--callgrind-out-file={}", out_file.display()))
        .arg(bin)
        .args(args);
    let out = run(c);
    let _ = std::fs::remove_file(&out_file);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let total = stderr
        .lines()
        .find_map(|l| l.split("Collected :").nth(1))
        .and_then(|v| v.trim().parse().ok());
    if total.is_none() {
        eprintln!("no callgrind total for {args:?}:\n{stderr}");
    }
    (total, out)
}
