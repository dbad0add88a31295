//! Handing a scope to another thread or task: a [`ScopeHandle`] names an
//! open scope, and [`ScopeHandle::in_scope`] makes it current elsewhere, so
//! that what is opened or emitted there is its child (the same trace, this
//! scope as parent) instead of the start of a new trace.

use super::scope::{enter_ids, Scope, ScopeGuard};
use crate::record::scope_stack::current;

/// An open scope's identity: `Copy` and `Send`, to hand to a worker
/// thread or an async task, where [`in_scope`](ScopeHandle::in_scope)
/// makes it the parent of what is opened and emitted. Like a span's
/// handle, it may be empty ([`ScopeHandle::none`]: no scope was open, or
/// telemetry was off); entering an empty handle does nothing.
///
/// ```
/// use elide::telemetry::ScopeHandle;
/// let _job = elide::scope!("job");
/// // Empty when no scope is open (telemetry off): `in_scope` then just runs.
/// let handle = ScopeHandle::current();
/// std::thread::spawn(move || {
///     handle.in_scope(|| {
///         // A child of `job`, in its trace; records here carry `job`'s ids.
///         let _part = elide::scope!("job.part");
///     })
/// })
/// .join()
/// .unwrap();
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScopeHandle {
    /// 0 for the empty handle (scope ids start at 1).
    id: u64,
    trace: u64,
}

impl ScopeHandle {
    /// The empty handle: [`in_scope`](ScopeHandle::in_scope) just runs.
    pub const fn none() -> ScopeHandle {
        ScopeHandle { id: 0, trace: 0 }
    }

    /// The handle of the innermost scope open on this thread (the one a
    /// new scope would take as parent), or [`ScopeHandle::none()`]: to hand
    /// the current scope on without holding its guard, or to read its
    /// [`id`](ScopeHandle::id).
    pub fn current() -> ScopeHandle {
        current()
            .map(|(id, trace)| ScopeHandle { id, trace })
            .unwrap_or_default()
    }

    /// Whether this is the empty handle.
    pub fn is_none(&self) -> bool {
        self.id == 0
    }

    /// The scope's id (`None` for the empty handle).
    pub fn id(&self) -> Option<u64> {
        (!self.is_none()).then_some(self.id)
    }

    /// Its root scope's id, its trace (`None` for the empty handle).
    pub fn trace(&self) -> Option<u64> {
        (!self.is_none()).then_some(self.trace)
    }

    /// Runs `f` with this handle's scope current on this thread: scopes
    /// opened in `f` are its children, in its trace, and records and events
    /// emitted in `f` carry its ids. The scope is current only until `f`
    /// returns (or unwinds); it is not closed here, its guard closes it
    /// where it was opened. The empty handle runs `f` as it is.
    pub fn in_scope<R>(&self, f: impl FnOnce() -> R) -> R {
        let _entered = (!self.is_none()).then(|| enter_ids(self.id, self.trace));
        f()
    }
}

impl Scope {
    /// This scope's handle, for [`ScopeHandle::in_scope`] on another
    /// thread or task.
    pub fn handle(&self) -> ScopeHandle {
        ScopeHandle {
            id: self.id(),
            trace: self.trace(),
        }
    }
}

impl ScopeGuard {
    /// The scope's handle, for [`ScopeHandle::in_scope`] on another thread
    /// or task.
    pub fn handle(&self) -> ScopeHandle {
        self.scope().handle()
    }
}

/// Former spelling of [`ScopeHandle::current`] (`None` where that is the
/// empty handle).
#[doc(hidden)]
#[deprecated(note = "use `ScopeHandle::current()`")]
pub fn current_handle() -> Option<ScopeHandle> {
    Some(ScopeHandle::current()).filter(|h| !h.is_none())
}

/// Former spelling of [`ScopeHandle::in_scope`].
#[doc(hidden)]
#[deprecated(note = "use `handle.in_scope(f)`")]
pub fn in_scope<R>(handle: impl Into<Option<ScopeHandle>>, f: impl FnOnce() -> R) -> R {
    handle.into().unwrap_or_default().in_scope(f)
}

#[cfg(test)]
mod tests {
    use super::ScopeHandle;

    /// Out of any scope the current handle is the empty one: it has no
    /// ids, and entering it runs the closure with nothing made current.
    #[test]
    fn the_empty_handle_runs_its_closure_and_enters_nothing() {
        let handle = ScopeHandle::current();
        assert!(handle.is_none());
        assert_eq!((handle.id(), handle.trace()), (None, None));
        assert_eq!(handle, ScopeHandle::none());
        let got = handle.in_scope(|| {
            assert!(ScopeHandle::current().is_none());
            7
        });
        assert_eq!(got, 7);
    }
}
