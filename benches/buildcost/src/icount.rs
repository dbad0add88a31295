//! Compiler instructions of one crate's incremental build, counted by
//! callgrind: a figure that does not drift with the machine's load, unlike
//! wall time, so the ratio to `log` holds on a busy two-core machine.
//!
//! Cargo runs this program as its `RUSTC_WRAPPER`; for the crate named in
//! [`WRAP_VAR`] it runs rustc under callgrind (procedural macros run inside
//! rustc, so their time is in the count), every other rustc as is.

use std::ffi::OsString;
use std::path::Path;
use std::process::Command;

/// `<crate name>=<callgrind output file>`: set for cargo, read by the
/// wrapper.
pub const WRAP_VAR: &str = "ELIDE_BUILDCOST_CALLGRIND";

/// When cargo runs us as its rustc wrapper: runs rustc (under callgrind for
/// the crate asked for) and returns its exit code; `None` otherwise.
pub fn wrap_if_asked() -> Option<i32> {
    let spec = std::env::var(WRAP_VAR).ok()?;
    let (krate, out) = spec.split_once('=')?;
    let mut args = std::env::args_os().skip(1);
    let rustc = args.next()?;
    let args: Vec<OsString> = args.collect();
    let counted = args
        .windows(2)
        .any(|w| w[0] == "--crate-name" && w[1] == krate);
    let status = if counted {
        Command::new("valgrind")
            .args(["--tool=callgrind", "-q"])
            .arg(format!("--callgrind-out-file={out}"))
            .arg(&rustc)
            .args(&args)
            .status()
    } else {
        Command::new(&rustc).args(&args).status()
    };
    Some(match status {
        Ok(s) => s.code().unwrap_or(1),
        Err(e) => {
            eprintln!(
                "elide-bench-buildcost: cannot run {}: {e}",
                rustc.to_string_lossy()
            );
            1
        }
    })
}

/// The instructions callgrind counted, from its output file's `summary:`
/// (or `totals:`) line.
pub fn instructions(out: &Path) -> Result<u64, String> {
    let text = std::fs::read_to_string(out).map_err(|e| format!("{}: {e}", out.display()))?;
    parse(&text).ok_or_else(|| format!("{}: no instruction total", out.display()))
}

fn parse(text: &str) -> Option<u64> {
    text.lines()
        .find_map(|l| {
            l.strip_prefix("summary:")
                .or_else(|| l.strip_prefix("totals:"))
        })
        .and_then(|n| n.split_whitespace().next()?.parse().ok())
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn reads_the_total_of_a_callgrind_file() {
        let file = "# callgrind format\nevents: Ir\nfn=main\n3 10\n\nsummary: 833348244\n";
        assert_eq!(parse(file), Some(833_348_244));
        assert_eq!(parse("events: Ir\ntotals: 42 7\n"), Some(42));
        assert_eq!(parse("events: Ir\n"), None);
    }
}
