//! Testing code that logs: capture what one test's thread logs, in parallel
//! with every other test, without touching the installed sinks.
//!
//! A [`MemorySink`] installed with
//! [`set_sinks`](crate::set_sinks) is process-wide: under cargo's parallel
//! test runner, every test sees every other test's records (and replaces
//! the others' sinks). A capture belongs to a thread instead:
//!
//! ```
//! use elide::testing;
//! use elide::Level;
//!
//! fn reserve(disk_free: u64) {
//!     if disk_free < 10 {
//!         elide::warn!(free = disk_free, "disk almost full");
//!     }
//!     elide::debug!("reserved");
//! }
//!
//! let records = testing::capture(|| reserve(3));
//! records
//!     .assert_logged(Level::Warn, "disk")
//!     .assert_field("free", 3);
//! // Debug is off for the process (the default level is Error), but a
//! // capture sees every level.
//! records.assert_logged(Level::Debug, "reserved");
//! assert_eq!(records.messages(), ["disk almost full", "reserved"]);
//! ```
//!
//! What a capture sees:
//! - every log record its thread emits, at every level (or up to the level
//!   given to [`Capture::with_level`]), whatever the configuration says:
//!   a test of a `debug!` line needs no `set_level`. Sites removed by the
//!   static gate (cargo features, `ELIDE_STATIC_LEVEL`) have no code and
//!   are never seen;
//! - the same from the `log` and `tracing` bridges: while a capture is
//!   active anywhere, `log::max_level()` and tracing's level hint are
//!   `Trace`, and the bridges let through, per thread, what the
//!   configuration or a capture of that thread wants;
//! - telemetry events of sites whose telemetry is on (`set_telemetry`,
//!   `PROFILE`), even if no installed sink wants events;
//! - nothing from other threads, unless they enter it: threads the code
//!   under test spawns are not followed automatically (std offers no hook
//!   at spawn). Spawn them with [`spawn`], which enters every capture of
//!   the spawning thread, or enter a [`CaptureHandle`] in them
//!   ([`CaptureHandle::in_scope`]).
//!
//! The installed sinks are unaffected: they receive exactly what they would
//! without the capture. Captures do not turn `check!` sites on (that is
//! debug mode, see [`set_debug`](crate::set_debug)).
//!
//! Cost: with no capture active anywhere in the process, nothing changes
//! (a disabled site is still one load, compare and branch). While one is
//! active on any thread, every log site of the process takes the cold path,
//! where it checks whether its thread is in a capture: tests only.

mod captured;
mod records;

use std::marker::PhantomData;
use std::sync::Arc;
use std::thread::JoinHandle;

use crate::dispatch;
use crate::dispatch::interest;
use crate::record::level::LevelFilter;
use crate::sink::{MemorySink, Sink};

pub use captured::Captured;
pub use records::Records;

/// Runs `f` inside a capture of this thread and returns what it logged,
/// with what `f` returned: a [`Captured`] reads as the [`Records`] (example
/// in the [module docs](self)) and holds the value in
/// [`value`](Captured::value). If `f` panics, the capture ends and the
/// panic continues.
///
/// ```
/// use elide::{testing, Level};
/// fn run(n: u64) -> u64 {
///     elide::info!(n, "running");
///     n * 2
/// }
/// let run = testing::capture(|| run(3));
/// assert_eq!(run.value, 6);
/// run.assert_logged(Level::Info, "running").assert_field("n", 3);
/// ```
pub fn capture<R>(f: impl FnOnce() -> R) -> Captured<R> {
    let capture = Capture::start();
    let value = f();
    Captured {
        value,
        records: capture.finish(),
    }
}

/// A capture of what this thread logs, from [`Capture::start`] until it is
/// dropped or [finished](Capture::finish).
///
/// ```
/// use elide::{testing::Capture, Level};
///
/// let capture = Capture::start();
/// elide::error!(code = 7, "failed");
/// let records = capture.finish();
/// records.assert_logged(Level::Error, "failed").assert_field("code", 7);
/// ```
///
/// It stays on the thread that started it (it is not `Send`); to collect
/// from other threads, give them a [`handle`](Capture::handle).
#[derive(Debug)]
#[must_use = "the capture ends when this is dropped"]
pub struct Capture {
    handle: CaptureHandle,
    _entered: Entered,
}

impl Capture {
    /// Starts capturing every level this thread logs.
    pub fn start() -> Capture {
        Capture::with_level(LevelFilter::Trace)
    }

    /// Starts capturing the levels up to `level` (and telemetry events):
    /// with `LevelFilter::Info`, `debug!` and `trace!` lines are not kept.
    pub fn with_level(level: LevelFilter) -> Capture {
        let handle = CaptureHandle {
            sink: Arc::new(MemorySink::new().with_level(level)),
        };
        let _entered = Entered::new(handle.sink.clone());
        Capture { handle, _entered }
    }

    /// A handle other threads can enter to log into this capture.
    ///
    /// ```
    /// use elide::{testing::Capture, Level};
    /// let capture = Capture::start();
    /// let handle = capture.handle();
    /// std::thread::scope(|s| {
    ///     s.spawn(|| handle.in_scope(|| elide::info!("from a worker")));
    /// });
    /// capture.finish().assert_logged(Level::Info, "worker");
    /// ```
    pub fn handle(&self) -> CaptureHandle {
        self.handle.clone()
    }

    /// A copy of what was captured so far.
    pub fn records(&self) -> Records {
        self.handle.records()
    }

    /// Takes what was captured so far; the capture goes on, empty.
    pub fn take(&self) -> Records {
        Records(self.handle.sink.take())
    }

    /// Ends the capture and returns everything it collected (including what
    /// threads that entered its handle logged).
    pub fn finish(self) -> Records {
        drop(self._entered);
        Records(self.handle.sink.take())
    }
}

/// A capture that any thread can enter: what a thread logs while it is
/// inside goes into the capture. Cloned from [`Capture::handle`]; `Send`
/// and `Sync`.
#[derive(Clone, Debug)]
pub struct CaptureHandle {
    sink: Arc<MemorySink>,
}

impl CaptureHandle {
    /// Runs `f` with this thread inside the capture.
    pub fn in_scope<R>(&self, f: impl FnOnce() -> R) -> R {
        let _entered = Entered::new(self.sink.clone());
        f()
    }

    /// A copy of what the capture collected so far.
    pub fn records(&self) -> Records {
        Records(self.sink.records())
    }
}

/// This thread is inside a capture until this guard drops. Not `Send`: it
/// leaves the capture of the thread that entered it.
#[must_use = "the thread leaves the capture when this is dropped"]
struct Entered {
    hook: Arc<dyn Sink>,
    _not_send: PhantomData<*const ()>,
}

// A capture stays consistent across a panic (its records sit behind a
// poison-tolerant lock), so tests may move one into `catch_unwind`.
impl std::panic::UnwindSafe for Entered {}
impl std::panic::RefUnwindSafe for Entered {}

impl std::fmt::Debug for Entered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Entered").finish_non_exhaustive()
    }
}

impl Entered {
    fn new(hook: Arc<dyn Sink>) -> Entered {
        interest::enter_capture(hook.clone());
        Entered {
            hook,
            _not_send: PhantomData,
        }
    }
}

impl Drop for Entered {
    fn drop(&mut self) {
        interest::leave_capture(&self.hook);
    }
}

/// [`std::thread::spawn`], with the new thread inside every capture the
/// calling thread is in: what it logs is captured like the caller's.
///
/// ```
/// use elide::{testing, Level};
/// let records = testing::capture(|| {
///     testing::spawn(|| elide::warn!("from the spawned thread")).join().unwrap();
/// });
/// records.assert_logged(Level::Warn, "spawned");
/// ```
pub fn spawn<F, T>(f: F) -> JoinHandle<T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    let hooks = dispatch::captures_here();
    std::thread::spawn(move || {
        let _entered: Vec<Entered> = hooks.into_iter().map(Entered::new).collect();
        f()
    })
}
