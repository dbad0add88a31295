//! Each thread's lane into an async sink: its own single-producer ring,
//! found through a thread-local list (the last sink used checked first),
//! handed back to the sink when the thread exits and taken over, records
//! and all, by the next thread that logs, so memory follows the threads
//! alive at once.
//!
//! Statics owned here: each thread's `LANES` (its rings, one per sink).

use std::cell::{Cell, RefCell};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::ring::Ring;
use super::shared::{lock, RingShared};

/// One thread's rings, one per sink it logged into; the first entry is
/// checked before the list.
pub(super) struct Lanes {
    pub(super) last_id: Cell<u64>,
    pub(super) last: Cell<*const Ring>,
    all: RefCell<Vec<Lane>>,
}

/// This thread's ring for one sink.
struct Lane {
    id: u64,
    ring: Arc<Ring>,
    /// The sink, to hand the ring back to when the thread exits.
    shared: std::sync::Weak<RingShared>,
}

impl Drop for Lanes {
    fn drop(&mut self) {
        // The sink keeps each ring registered (its writer drains it) and
        // gives it to the next thread that logs.
        for lane in self.all.get_mut().drain(..) {
            if let Some(shared) = lane.shared.upgrade() {
                shared.retire(lane.ring);
            }
        }
    }
}

thread_local! {
    pub(super) static LANES: Lanes = const {
        Lanes {
            last_id: Cell::new(0),
            last: Cell::new(std::ptr::null()),
            all: RefCell::new(Vec::new()),
        }
    };
}

/// The slow part of finding this thread's ring for `shared`: looks in the
/// list (dropping rings of stopped sinks), else makes and registers one.
#[cold]
#[inline(never)]
pub(super) fn lane(l: &Lanes, shared: &Arc<RingShared>) -> *const Ring {
    let mut all = l.all.borrow_mut();
    all.retain(|l| !l.ring.dead.load(Ordering::Relaxed));
    let ring = match all.iter().find(|l| l.id == shared.id) {
        Some(l) => l.ring.clone(),
        None => {
            let ring = shared.take_spare().unwrap_or_else(|| {
                let ring = Arc::new(Ring::new(shared.ring_words, crate::record::thread_number()));
                shared.register(ring.clone());
                ring
            });
            all.push(Lane {
                id: shared.id,
                ring: ring.clone(),
                shared: Arc::downgrade(shared),
            });
            ring
        }
    };
    l.last_id.set(shared.id);
    l.last.set(Arc::as_ptr(&ring));
    Arc::as_ptr(&ring)
}

impl RingShared {
    pub(super) fn register(&self, ring: Arc<Ring>) {
        lock(&self.rings).push(ring);
        self.rings_changed.store(true, Ordering::Release);
    }

    /// Takes back the ring of a thread that exited (see `spare`).
    pub(super) fn retire(&self, ring: Arc<Ring>) {
        if ring.dead.load(Ordering::Relaxed) {
            return;
        }
        let Some(mut spare) = crate::os::process::lock(&self.spare) else {
            return;
        };
        spare.push(ring);
        self.spare_len.store(spare.len(), Ordering::Relaxed);
    }

    /// A ring of an exited thread for this thread to produce into, records
    /// still queued in it and all. The lock hands the producer's side over.
    pub(super) fn take_spare(&self) -> Option<Arc<Ring>> {
        let mut spare = crate::os::process::lock(&self.spare)?;
        let ring = spare.pop()?;
        self.spare_len.store(spare.len(), Ordering::Relaxed);
        ring.taken_over.set(true);
        Some(ring)
    }
}
