//! What elide knows about the process it runs in: the cached process id,
//! whether this is a forked child, and the coarse clock of `every` sites.
//!
//! Statics owned here: `PID` (cached id), `FORKED` (set in a forked child),
//! the fork handler's registration, and the coarse clock (`COARSE_MS`,
//! `LAST_ACTIVE_MS`, `EPOCH`, `TICKER`).
//!
//! A forked child inherits every lock in the state it had at the fork, held
//! or not, but only the thread that forked: a lock some other thread of the
//! parent held stays held for good. Code that may run in a child (shutdown,
//! the built-in sinks) takes such locks through [`lock`], which only
//! `try_lock`s there.

use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock, TryLockError};
use std::time::{Duration, Instant};

/// The cached process id; 0 = not read yet (or forgotten in a forked child).
static PID: AtomicU32 = AtomicU32::new(0);
/// Set by the fork handler in a child.
static FORKED: AtomicBool = AtomicBool::new(false);

/// The executable's file name without extension (`my_app` for
/// `/usr/bin/my_app`), or `None` if the OS cannot say or it is empty; the
/// default name of `.prof` files, `LOG_TGT=.` files and OTLP's service.
pub(crate) fn exe_name() -> Option<String> {
    std::env::current_exe()
        .ok()?
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .filter(|s| !s.is_empty())
}

/// The process id once [`pid`] has stored it, else 0: one load, for a
/// hot check against an id read earlier (a mismatch goes the slow way).
#[cfg(feature = "async")]
#[inline]
pub(crate) fn known_pid() -> u32 {
    PID.load(Ordering::Relaxed)
}

/// The process id, for every line. `getpid` is a system call (about 130 ns
/// here, a third of a RADICAL header), so it is read once and kept; on Unix
/// a `pthread_atfork` child handler forgets it, so a forked child prints its
/// own id. If the handler cannot be registered, nothing is cached.
pub(crate) fn pid() -> u32 {
    match PID.load(Ordering::Relaxed) {
        0 => {
            let pid = std::process::id();
            if arm() {
                PID.store(pid, Ordering::Relaxed);
            }
            pid
        }
        pid => pid,
    }
}

/// Whether this process is a fork of the one elide started in (known once
/// [`arm`] has run before the fork: every sink constructor and the runtime's
/// start-up call it).
pub(crate) fn in_forked_child() -> bool {
    FORKED.load(Ordering::Relaxed)
}

/// Locks `m`, ignoring poison; in a forked child only if it is free, since
/// a thread of the parent may have held it at the fork and will never give
/// it back (`None` then).
pub(crate) fn lock<T>(m: &Mutex<T>) -> Option<MutexGuard<'_, T>> {
    if !in_forked_child() {
        return Some(m.lock().unwrap_or_else(|e| e.into_inner()));
    }
    match m.try_lock() {
        Ok(g) => Some(g),
        Err(TryLockError::Poisoned(e)) => Some(e.into_inner()),
        Err(TryLockError::WouldBlock) => None,
    }
}

/// Writes `text` to stderr. In a forked child straight to the file
/// descriptor, bypassing the lock of `std::io::stderr` that a thread of the
/// parent may have held (stderr is unbuffered, so nothing is reordered).
pub(crate) fn write_stderr(text: &[u8]) -> std::io::Result<()> {
    #[cfg(unix)]
    if in_forked_child() {
        use std::os::fd::FromRawFd;
        // SAFETY: fd 2 stays open for the process; `ManuallyDrop` keeps
        // this handle from closing it.
        let mut fd = std::mem::ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(2) });
        return fd.write_all(text);
    }
    std::io::stderr().lock().write_all(text)
}

/// Registers the fork handler (once); whether it is in place. (Without
/// fork, nothing to register: the id never changes.)
pub(crate) fn arm() -> bool {
    #[cfg(unix)]
    {
        extern "C" {
            // POSIX; in the C library std already links.
            fn pthread_atfork(
                prepare: Option<extern "C" fn()>,
                parent: Option<extern "C" fn()>,
                child: Option<extern "C" fn()>,
            ) -> std::ffi::c_int;
        }
        extern "C" fn in_child() {
            // Async-signal-safe: atomic stores only.
            PID.store(0, Ordering::Relaxed);
            FORKED.store(true, Ordering::Relaxed);
            // The clock is stale and no ticker runs; the next hit starts one.
            COARSE_MS.store(0, Ordering::Relaxed);
            // The parent's other threads, and their counter slots, are gone.
            crate::site::counter::after_fork_in_child();
        }
        static INSTALLED: OnceLock<bool> = OnceLock::new();
        // SAFETY: registers a handler that only reads a thread-local and
        // stores to atomics; the function pointer is valid for the life of
        // the process.
        *INSTALLED.get_or_init(|| unsafe { pthread_atfork(None, None, Some(in_child)) } == 0)
    }
    #[cfg(not(unix))]
    true
}

/// Set once the process is exiting (the exit handler runs).
static EXITING: AtomicBool = AtomicBool::new(false);

/// Notes that the process is exiting: sinks flushed from now on close for
/// good (an async sink counts later records as dropped instead of queueing
/// them for a writer that will not get to them).
pub(crate) fn begin_exit() {
    EXITING.store(true, Ordering::SeqCst);
}

/// Whether the process is exiting (asked by the async sinks only).
#[cfg(feature = "async")]
pub(crate) fn exiting() -> bool {
    EXITING.load(Ordering::SeqCst)
}

/// Resolution of the coarse clock used by `every`.
pub(crate) const TICK: Duration = Duration::from_millis(1);

/// The ticker parks after this long without an admitted `every` hit, so an
/// idle process has no timer wake-ups; the next hit wakes it.
pub(crate) const TICKER_IDLE: Duration = Duration::from_secs(1);

/// Coarse milliseconds since `EPOCH`, plus one; 0 = no ticker running (not
/// started yet, or parked).
static COARSE_MS: AtomicU64 = AtomicU64::new(0);
/// The coarse time of the last admitted hit or ticker wake-up.
static LAST_ACTIVE_MS: AtomicU64 = AtomicU64::new(0);
static EPOCH: OnceLock<Instant> = OnceLock::new();
/// The ticker thread and the process it runs in (a forked child has none).
static TICKER: Mutex<Option<(u32, std::thread::Thread)>> = Mutex::new(None);

/// Milliseconds since the ticker started (always >= 1 once running).
#[inline(always)]
pub(crate) fn coarse_ms() -> u64 {
    match COARSE_MS.load(Ordering::Relaxed) {
        0 => wake_ticker(),
        ms => ms,
    }
}

/// Notes activity at coarse time `now`, so the ticker keeps running.
pub(crate) fn mark_active(now: u64) {
    LAST_ACTIVE_MS.fetch_max(now, Ordering::Relaxed);
}

fn precise_ms(epoch: Instant) -> u64 {
    epoch.elapsed().as_millis() as u64 + 1
}

fn tick(epoch: Instant) {
    let idle = TICKER_IDLE.as_millis() as u64;
    loop {
        std::thread::sleep(TICK);
        let now = precise_ms(epoch);
        if now.saturating_sub(LAST_ACTIVE_MS.load(Ordering::Relaxed)) > idle {
            // Readers that see 0 wake us (and read the clock themselves
            // until we run again); a wake-up that races with this store
            // leaves the park token set, so `park` returns at once.
            COARSE_MS.store(0, Ordering::Relaxed);
            std::thread::park();
            continue;
        }
        COARSE_MS.store(now, Ordering::Relaxed);
    }
}

/// Starts the ticker on the first `every` hit, or wakes it after it parked;
/// returns the precise time meanwhile.
#[cold]
#[inline(never)]
fn wake_ticker() -> u64 {
    let epoch = *EPOCH.get_or_init(Instant::now);
    let now = precise_ms(epoch);
    LAST_ACTIVE_MS.fetch_max(now, Ordering::Relaxed);
    let pid = pid(); // also arms the fork handler
                     // try_lock: another hit is starting the ticker (or, in a forked child,
                     // the lock was copied held); this hit just uses the precise time.
    if let Ok(mut ticker) = TICKER.try_lock() {
        let running = matches!(&*ticker, Some((p, _)) if *p == pid);
        if !running {
            *ticker = std::thread::Builder::new()
                .name("elide-ticker".into())
                .spawn(move || tick(epoch))
                .ok()
                .map(|h| (pid, h.thread().clone()));
        }
        if let Some((_, t)) = &*ticker {
            // fetch_max: the ticker may already have stored a later time.
            COARSE_MS.fetch_max(now, Ordering::Relaxed);
            t.unpark();
        }
    }
    // Without a thread, every hit reads the clock here.
    now
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ticker parks when nothing is active and comes back on the next
    /// read, with a fresh time.
    #[test]
    fn ticker_parks_when_idle_and_wakes_on_the_next_read() {
        let first = coarse_ms();
        mark_active(first);
        // The ticker parks 1 s after the last activity; 8 s is generous and
        // stays under the mutation-test timeout, so a ticker that never
        // parks fails here instead of timing out.
        let deadline = Instant::now() + Duration::from_secs(8);
        while COARSE_MS.load(Ordering::Relaxed) != 0 {
            assert!(Instant::now() < deadline, "ticker never parked");
            std::thread::sleep(Duration::from_millis(50));
        }
        let before = precise_ms(*EPOCH.get().unwrap());
        let woken = coarse_ms();
        assert!(woken >= before, "woken with a fresh time");
        std::thread::sleep(Duration::from_millis(20));
        assert!(coarse_ms() > woken, "the woken clock advances");
    }

    /// While `every` hits keep being admitted, the ticker keeps the coarse
    /// clock running: readers almost never find it parked.
    #[test]
    fn ticker_keeps_running_while_busy() {
        mark_active(coarse_ms());
        std::thread::sleep(Duration::from_millis(20));
        let mut parked = 0;
        for _ in 0..50 {
            if COARSE_MS.load(Ordering::Relaxed) == 0 {
                parked += 1;
            }
            mark_active(coarse_ms());
            std::thread::sleep(Duration::from_millis(4));
        }
        assert!(
            parked <= 5,
            "found the ticker parked on {parked} of 50 busy reads"
        );
    }
}
