//! Flushing at process exit.
//!
//! The `init` guard flushes when `main` returns with it alive, but a program
//! that calls `std::process::exit`, or never kept a guard, skips every
//! destructor: buffered files and async queues would lose their tail. On
//! Unix, elide registers one `atexit` handler at start-up that flushes every
//! sink (waiting for async queues to drain) and closes `.prof` files, so
//! what was accepted before `exit` reaches its destination.

/// Flushes everything elide holds; what the `atexit` handler runs.
fn flush_everything() {
    // From inside a sink (a sink that called `exit`) a flush could wait on
    // the very lock or queue this thread holds: skip it then.
    if crate::dispatch::in_dispatch() {
        return;
    }
    crate::dispatch::flush();
    crate::dispatch::flush_retired();
    crate::telemetry::close();
}

/// Registers the exit handler once per process.
#[cfg(unix)]
pub(crate) fn flush_at_exit() {
    use std::sync::Once;
    extern "C" {
        // C standard library, already linked by std.
        fn atexit(callback: extern "C" fn()) -> std::ffi::c_int;
    }
    extern "C" fn on_exit() {
        // Unwinding into C is undefined: contain any panic.
        let _ = std::panic::catch_unwind(flush_everything);
    }
    static ONCE: Once = Once::new();
    // SAFETY: `on_exit` is a valid `extern "C" fn()` for the life of the
    // process and does not unwind.
    ONCE.call_once(|| unsafe {
        atexit(on_exit);
    });
}

/// Elsewhere only the guard flushes.
#[cfg(not(unix))]
pub(crate) fn flush_at_exit() {
    let _ = flush_everything;
}
