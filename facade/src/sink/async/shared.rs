//! The state an async sink's callers and its writer share: counters,
//! the registered rings, the byte budget, the flush handshake and whether
//! the writer lives. Its methods live with the concern that uses them
//! (lanes, wake-up, writer).

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::Thread;

use super::ring::Ring;
use super::Overflow;

/// A field on cache lines of its own (128 bytes: the pair of lines that
/// adjacent-line prefetching moves together), so the writer's stores to it
/// do not take from the callers' cores the line of the fields they read
/// per record (false sharing: a cache miss per record while the writer
/// drains).
#[derive(Default)]
#[repr(align(128))]
pub(crate) struct Apart<T>(pub(super) T);

impl<T> std::ops::Deref for Apart<T> {
    type Target = T;
    #[inline(always)]
    fn deref(&self) -> &T {
        &self.0
    }
}

/// State shared by the callers and the writer. The fields every caller
/// reads per record are written rarely; those the writer writes as it runs
/// are each [`Apart`].
#[derive(Default)]
pub(crate) struct RingShared {
    pub(super) id: u64,
    pub(super) name: String,
    /// Whether records carry the thread's name (a wrapped sink's output).
    pub(super) names: bool,
    /// Whether a panic of the wrapped sink was reported on stderr.
    pub(super) panic_reported: AtomicBool,
    pub(super) dropped: AtomicU64,
    pub(super) written: Apart<AtomicU64>,
    pub(super) failed: AtomicU64,
    /// Records the writer has taken but not yet counted written or failed.
    pub(super) in_hand: Apart<AtomicU64>,
    /// Every ring that may hold records (exited threads' too).
    pub(super) rings: Mutex<Vec<Arc<Ring>>>,
    pub(super) rings_changed: Apart<AtomicBool>,
    /// Rings of exited threads, registered still, that no thread produces
    /// into: the next new thread takes one over; the writer frees empty
    /// ones beyond `max_bytes`. Only taken out under this lock, so a ring
    /// the writer frees is never one a thread has just taken.
    pub(super) spare: Mutex<Vec<Arc<Ring>>>,
    /// How many rings `spare` holds (read by the writer without the lock).
    pub(super) spare_len: AtomicUsize,
    /// The ring of threads whose locals are gone, pushed under its lock.
    pub(super) orphan: Mutex<Option<Arc<Ring>>>,
    pub(super) ring_words: usize,
    pub(super) policy: Overflow,
    pub(super) writer: Mutex<Option<Thread>>,
    pub(super) writer_alive: AtomicBool,
    pub(super) sleeping: Apart<AtomicBool>,
    pub(super) shutdown: AtomicBool,
    pub(super) flush_requested: AtomicU64,
    pub(super) flushed: Apart<Mutex<u64>>,
    pub(super) flushed_cv: Condvar,
    /// Bytes of long texts moved to the heap by queued records, bounded by
    /// `max_bytes` (the rings themselves are fixed: one per thread).
    pub(super) heap_bytes: Apart<AtomicUsize>,
    pub(super) max_bytes: usize,
    /// Set by the exit flush: the writer drops (and counts) what is left
    /// instead of writing it.
    pub(super) discarding: AtomicBool,
}

pub(super) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl RingShared {
    /// Records in the rings (approximate while callers run).
    pub(crate) fn queued(&self) -> u64 {
        crate::os::process::lock(&self.rings)
            .map(|r| r.iter().map(|r| r.queued()).sum())
            .unwrap_or(0)
    }

    pub(crate) fn counts(&self) -> (u64, u64, u64) {
        (
            self.written.load(Ordering::Relaxed),
            self.dropped.load(Ordering::Relaxed),
            self.failed.load(Ordering::Relaxed),
        )
    }
}
