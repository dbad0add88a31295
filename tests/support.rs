//! Shared helpers for the integration tests.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Runs `cmd` with its output captured and a deadline, so a hung build or
/// child fails the test (killed, with the command in the message) instead
/// of hanging it.
pub fn run_with_deadline(cmd: &mut Command, limit: Duration) -> Output {
    let child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn {cmd:?}: {e}"));
    wait_with_deadline(child, limit, &format!("{cmd:?}"))
}

/// Waits for `child`, killing it and panicking (naming `what`) past
/// `limit`. The pipes it still has are drained on threads, so a chatty
/// child cannot block on a full one; a pipe taken before is empty in the
/// output.
pub fn wait_with_deadline(mut child: Child, limit: Duration, what: &str) -> Output {
    fn drain(pipe: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<Vec<u8>> {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    }
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Output {
        status,
        stdout: stdout.join().expect("stdout reader"),
        stderr: stderr.join().expect("stderr reader"),
    }
}

/// A path under the system temp directory for one test's files: unique to
/// this process, `tag` and call, and removed (a file, or a directory with
/// everything in it) when the guard drops, also when the test fails
/// first, so a run leaves nothing behind in the temp directory.
///
/// `Scratch::path` gives a path with nothing at it (for a log file a sink
/// creates); `Scratch::dir` an empty directory.
#[derive(Debug)]
pub struct Scratch(PathBuf);

impl Scratch {
    /// A path with nothing at it yet.
    pub fn path(tag: &str) -> Scratch {
        static CALLS: AtomicUsize = AtomicUsize::new(0);
        let n = CALLS.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("elide-{tag}-{}-{n}", std::process::id()));
        let scratch = Scratch(path);
        scratch.clear();
        scratch
    }

    /// An empty directory.
    pub fn dir(tag: &str) -> Scratch {
        let scratch = Scratch::path(tag);
        std::fs::create_dir_all(&scratch.0).expect("create a scratch directory");
        scratch
    }

    fn clear(&self) {
        if self.0.is_dir() {
            let _ = std::fs::remove_dir_all(&self.0);
        } else {
            let _ = std::fs::remove_file(&self.0);
        }
    }
}

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<std::ffi::OsStr> for Scratch {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.as_os_str()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        self.clear();
    }
}

/// Serialises the tests of one test binary that replace process-wide
/// state (the installed sinks, levels, the telemetry switch). A test that
/// panicked while holding it does not poison the others.
pub fn serial() -> std::sync::MutexGuard<'static, ()> {
    static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// Installs `sink` as the only sink, with the level at `Info`.
pub fn install(sink: std::sync::Arc<dyn elide::Sink>) {
    elide::set_sinks([sink]);
    elide::set_level(elide::LevelFilter::Info);
}

/// A path for one test's file, removed when the test ends (see [`Scratch`]).
pub fn temp_path(name: &str) -> Scratch {
    Scratch::path(name)
}

/// A future that is pending once, then ready: a real suspension point for
/// the tests of checked and timed `async fn`s.
#[derive(Debug)]
pub struct YieldOnce(pub bool);

impl YieldOnce {
    /// A future that has not yielded yet.
    pub fn new() -> YieldOnce {
        YieldOnce(false)
    }
}

impl Default for YieldOnce {
    fn default() -> Self {
        YieldOnce::new()
    }
}

impl std::future::Future for YieldOnce {
    type Output = ();
    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<()> {
        if self.0 {
            return std::task::Poll::Ready(());
        }
        self.0 = true;
        cx.waker().wake_by_ref();
        std::task::Poll::Pending
    }
}

/// Builds the fixture crate `fixtures/<fixture>` (a crate of its own, not
/// a workspace member: its features must not unify with ours) with
/// `features` into `target`, under a deadline; the path of its debug
/// binary `bin`.
pub fn build_fixture(fixture: &str, features: &str, target: &Path, bin: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(fixture);
    let mut cmd = Command::new(env!("CARGO"));
    cmd.current_dir(&dir)
        .args(["build", "--quiet", "--features", features, "--target-dir"])
        .arg(target);
    let out = run_with_deadline(&mut cmd, Duration::from_secs(600));
    assert!(
        out.status.success(),
        "fixture {fixture} build failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    target
        .join("debug")
        .join(format!("{bin}{}", std::env::consts::EXE_SUFFIX))
}
