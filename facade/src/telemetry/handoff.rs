//! Handing a scope to another thread or task: a [`ScopeHandle`] names an
//! open scope, and [`in_scope`] makes it current elsewhere, so that what
//! is opened or emitted there is its child (the same trace, this scope as
//! parent) instead of the start of a new trace.

use super::scope::{enter_ids, Scope, ScopeGuard};
use crate::scope_stack::current;

/// An open scope's identity: `Copy` and `Send`, to hand to a worker
/// thread or an async task, where [`in_scope`] makes it the parent of
/// what is opened and emitted.
///
/// ```
/// let _job = elide::scope!("job");
/// // `None` when no scope is open (telemetry off): `in_scope` then just runs.
/// let handle = elide::telemetry::current_handle();
/// std::thread::spawn(move || {
///     elide::telemetry::in_scope(handle, || {
///         // A child of `job`, in its trace; records here carry `job`'s ids.
///         let _part = elide::scope!("job.part");
///     })
/// })
/// .join()
/// .unwrap();
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScopeHandle {
    id: u64,
    trace: u64,
}

impl ScopeHandle {
    /// The scope's id.
    pub fn id(&self) -> u64 {
        self.id
    }
    /// Its root scope's id (its trace).
    pub fn trace(&self) -> u64 {
        self.trace
    }
}

impl Scope {
    /// This scope's handle, for [`in_scope`] on another thread or task.
    pub fn handle(&self) -> ScopeHandle {
        ScopeHandle {
            id: self.id(),
            trace: self.trace(),
        }
    }
}

impl ScopeGuard {
    /// The scope's handle, for [`in_scope`] on another thread or task.
    pub fn handle(&self) -> ScopeHandle {
        self.scope().handle()
    }
}

/// The handle of the innermost scope open on this thread, if any (to hand
/// the current scope on without holding its guard).
pub fn current_handle() -> Option<ScopeHandle> {
    current().map(|(id, trace)| ScopeHandle { id, trace })
}

/// Runs `f` with `handle`'s scope current on this thread: scopes opened in
/// `f` are its children, in its trace, and records and events emitted in
/// `f` carry its ids. The scope is current only until `f` returns (or
/// unwinds); it is not closed here, its guard closes it where it was
/// opened. `None` (no scope was open where the handle was taken) runs `f`
/// as it is.
pub fn in_scope<R>(handle: impl Into<Option<ScopeHandle>>, f: impl FnOnce() -> R) -> R {
    let _entered = handle.into().map(|h| enter_ids(h.id, h.trace));
    f()
}
