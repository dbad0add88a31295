//! When the writer sleeps and who wakes it: an idle writer parks for a
//! growing while; callers wake it only when their buffer is half full or
//! full, or on a flush (a wake-up is a system call); a caller waiting for
//! room backs off from spinning to sleeping.

use std::sync::atomic::Ordering;
use std::time::Duration;

use super::shared::RingShared;

/// How long an idle writer sleeps before it looks again, at first; it
/// doubles while nothing comes, up to `IDLE_MAX`.
pub(super) const IDLE: Duration = Duration::from_millis(1);
pub(super) const IDLE_MAX: Duration = Duration::from_millis(32);

impl RingShared {
    /// Wakes the writer if it sleeps.
    #[inline]
    pub(super) fn wake(&self) {
        if self.sleeping.swap(false, Ordering::AcqRel) {
            self.wake_now();
        }
    }

    /// Wakes the writer, asleep or not (a flush, the shutdown).
    pub(super) fn wake_now(&self) {
        self.sleeping.store(false, Ordering::Release);
        if let Some(w) = crate::os::process::lock(&self.writer).and_then(|w| w.clone()) {
            w.unpark();
        }
    }
}

/// Waits a little longer each try: spin, then yield, then sleep.
pub(super) fn backoff(tries: u32) {
    match tries {
        0..=63 => std::hint::spin_loop(),
        64..=127 => std::thread::yield_now(),
        _ => std::thread::sleep(Duration::from_micros(20)),
    }
}
