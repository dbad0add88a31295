//! The flush of [`install_panic_hook`](crate::install_panic_hook) for a
//! panic raised while a record was being emitted, in a program built with
//! `panic = "abort"`: the process ends when the hook returns, so what the
//! sinks hold is written now or never.
//!
//! The panicking thread is inside a sink: flushing from it could wait for
//! a lock or a queue it holds itself. So each sink is flushed on a thread
//! of its own, and the hook waits for them at most [`LIMIT`] (a sink stuck
//! behind the panicking thread cannot hold up the others, nor the abort).
//! After a panic in a logged value's `Debug` or `Display` every sink is
//! flushed, the one that was formatting it too: its own code did not fail,
//! and the built-in sinks format outside their locks. After a panic of a
//! sink's own code, that sink is left alone.
//!
//! On an async sink's writer thread (a wrapped sink or an output that
//! panicked), the async sink this thread writes for cannot drain: its
//! flush waits for this very thread. The hook then stops waiting when all
//! the sinks but one are flushed, rather than spending the whole limit on
//! that one.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::{contain, dispatch};

/// The longest the hook waits for the flushes before the process aborts.
const LIMIT: Duration = Duration::from_secs(10);

/// Flushes every sink the panicking thread may leave (see the module
/// documentation); reports on stderr the flushes that did not finish.
pub(super) fn flush_before_abort() {
    let skip = if contain::formatting_values_here() {
        None
    } else {
        dispatch::sink_in_use_here()
    };
    let (done_tx, done_rx) = mpsc::channel();
    let mut started = 0usize;
    for sink in dispatch::every_sink_but(skip) {
        let done = done_tx.clone();
        let flush = move || {
            dispatch::flush_contained(&*sink);
            let _ = done.send(());
        };
        if std::thread::Builder::new()
            .name("elide-abort-flush".to_owned())
            .spawn(flush)
            .is_ok()
        {
            started += 1;
        }
    }
    // The async sink this thread writes for waits for it: not that one.
    let awaited = if crate::sink::on_writer_thread() {
        started.saturating_sub(1)
    } else {
        started
    };
    let deadline = Instant::now() + LIMIT;
    let finished = (0..awaited)
        .take_while(|_| {
            let left = deadline.saturating_duration_since(Instant::now());
            done_rx.recv_timeout(left).is_ok()
        })
        .count();
    if finished < awaited {
        let _ = crate::os::process::write_stderr(
            format!(
                "elide: {} of {started} sinks did not finish flushing within {} s; \
                 the process aborts without waiting for them\n",
                awaited - finished,
                LIMIT.as_secs()
            )
            .as_bytes(),
        );
    }
}
