//! Running (and timing) cargo in a generated crate.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The cargo that runs this program, with a fixed job count.
pub struct Cargo {
    program: PathBuf,
    jobs: String,
}

impl Cargo {
    pub fn new(jobs: u32) -> Cargo {
        Cargo {
            program: std::env::var_os("CARGO").map_or_else(|| "cargo".into(), PathBuf::from),
            jobs: format!("-j{jobs}"),
        }
    }

    fn command(&self, dir: &Path, args: &[&str], jobs: bool) -> Command {
        let mut c = Command::new(&self.program);
        c.current_dir(dir).args(args);
        if jobs {
            c.arg(&self.jobs);
        }
        // Each generated crate builds in its own target dir (or one given
        // with --target-dir), never in the one of whoever ran us.
        c.env_remove("CARGO_TARGET_DIR")
            .env_remove("CARGO_BUILD_TARGET_DIR");
        c
    }

    /// Runs `cargo <args> -jN` in `dir`; the wall time, or cargo's stderr.
    pub fn time(&self, dir: &Path, args: &[&str], extra: &[&str]) -> Result<Duration, String> {
        self.time_with(dir, args, extra, &[])
    }

    /// As [`Cargo::time`], with environment variables set for cargo.
    pub fn time_with(
        &self,
        dir: &Path,
        args: &[&str],
        extra: &[&str],
        env: &[(&str, &std::ffi::OsStr)],
    ) -> Result<Duration, String> {
        let mut c = self.command(dir, args, true);
        c.args(extra);
        c.envs(env.iter().copied());
        let start = Instant::now();
        let out = c.output().map_err(|e| format!("cannot run cargo: {e}"))?;
        let took = start.elapsed();
        if out.status.success() {
            Ok(took)
        } else {
            Err(format!(
                "`cargo {}` in {} failed:\n{}",
                args.join(" "),
                dir.display(),
                String::from_utf8_lossy(&out.stderr)
            ))
        }
    }

    /// Runs a cargo subcommand that takes no job count; its stdout.
    pub fn stdout(&self, dir: &Path, args: &[&str]) -> Result<String, String> {
        let out = self
            .command(dir, args, false)
            .output()
            .map_err(|e| format!("cannot run cargo: {e}"))?;
        if out.status.success() {
            Ok(String::from_utf8_lossy(&out.stdout).into_owned())
        } else {
            Err(format!(
                "`cargo {}` in {} failed:\n{}",
                args.join(" "),
                dir.display(),
                String::from_utf8_lossy(&out.stderr)
            ))
        }
    }
}

/// Sets a file's modification time to now, as `touch` does: the next build
/// recompiles the crate (and reuses what incremental compilation can).
pub fn touch(path: &Path) -> std::io::Result<()> {
    std::fs::File::options()
        .write(true)
        .open(path)?
        .set_modified(std::time::SystemTime::now())
}
