//! The flush of [`install_panic_hook`](crate::install_panic_hook) for a
//! panic raised while a record was being emitted, built with
//! `panic = "abort"`: what the sinks hold is written now or never.
//!
//! The panicking thread may hold a sink's lock or queue, so each sink is
//! flushed on a thread of its own, all waited for at most [`LIMIT`]. After
//! a panic in a logged value's `Debug` or `Display` every sink is flushed
//! (the built-in sinks format outside their locks); after a sink's own
//! panic, that sink is left alone. On an async sink's writer thread, the
//! async sink it writes for cannot drain (its flush waits for this very
//! thread): the hook then waits for all the sinks but one.

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
    let awaited = started.saturating_sub(usize::from(crate::sink::on_writer_thread()));
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
