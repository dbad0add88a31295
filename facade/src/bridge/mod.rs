//! Bridges between elide and the `log` and `tracing` ecosystems, both ways,
//! each behind its cargo feature (`log`, `tracing`).
//!
//! Inbound bridges turn the other facade's records into elide records
//! through the run-time site table ([`emit`](crate::emit)): the record's
//! target is its namespace, so the same `RADICAL_*` cascade,
//! `set_level_for` rules and sinks apply. Outbound sinks hand elide records
//! to the other facade's installed logger or subscriber.
//!
//! Installing both directions cannot loop: while an outbound sink forwards
//! a record, the inbound bridges on that thread ignore what comes back, and
//! an outbound sink whose destination is elide's own inbound bridge forwards
//! nothing.

#[cfg(feature = "log")]
#[cfg_attr(docsrs, doc(cfg(feature = "log")))]
pub mod log;
#[cfg(feature = "tracing")]
#[cfg_attr(docsrs, doc(cfg(feature = "tracing")))]
pub mod tracing;

use std::cell::Cell;
use std::collections::HashSet;
use std::sync::{OnceLock, RwLock};

/// Distinct field names from other facades kept for the life of the
/// process; further ones are recorded under [`OVERFLOW_KEY`].
const MAX_KEYS: usize = 4096;

/// The name a field gets once [`MAX_KEYS`] distinct names were seen.
const OVERFLOW_KEY: &str = "elide.overflow_key";

thread_local! {
    /// Set while an outbound sink forwards a record on this thread.
    static FORWARDING: Cell<bool> = const { Cell::new(false) };
}

/// Whether this thread is inside an outbound sink: inbound bridges drop
/// what they receive then (it came from elide in the first place).
pub(crate) fn forwarding() -> bool {
    FORWARDING.with(Cell::get)
}

/// Runs `f` marked as forwarding (see [`forwarding`]).
#[allow(dead_code)] // used by the outbound sinks of either feature
pub(crate) fn forward<R>(f: impl FnOnce() -> R) -> R {
    struct Reset(bool);
    impl Drop for Reset {
        fn drop(&mut self) {
            FORWARDING.with(|c| c.set(self.0));
        }
    }
    let _reset = Reset(FORWARDING.with(|c| c.replace(true)));
    f()
}

/// A `'static` copy of a field name from another facade (elide's fields
/// are named by `&'static str`). Each distinct name is kept once.
#[allow(dead_code)] // used by the inbound `log` bridge
pub(crate) fn intern(name: &str) -> &'static str {
    static NAMES: OnceLock<RwLock<HashSet<&'static str>>> = OnceLock::new();
    let names = NAMES.get_or_init(Default::default);
    if let Some(n) = names.read().unwrap_or_else(|e| e.into_inner()).get(name) {
        return n;
    }
    let mut set = names.write().unwrap_or_else(|e| e.into_inner());
    if let Some(n) = set.get(name) {
        return n;
    }
    if set.len() >= MAX_KEYS {
        return OVERFLOW_KEY;
    }
    let n: &'static str = Box::leak(name.into());
    set.insert(n);
    n
}
