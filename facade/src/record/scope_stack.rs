//! The per-thread stack of current timed scopes, as (scope id, trace id),
//! innermost last: pushed and popped by [`telemetry`](crate::telemetry)'s
//! scopes, read by records (the span they were emitted in). A leaf, so the
//! record layer can read it without depending on the telemetry layer.

use std::cell::RefCell;

thread_local! {
    /// The scopes current on this thread, innermost last: (id, trace).
    static STACK: RefCell<Vec<(u64, u64)>> = const { RefCell::new(Vec::new()) };
}

/// The innermost current scope on this thread: (id, trace).
pub(crate) fn current() -> Option<(u64, u64)> {
    STACK
        .try_with(|s| s.try_borrow().ok().and_then(|s| s.last().copied()))
        .ok()
        .flatten()
}

/// Makes `(id, trace)` the innermost current scope on this thread.
pub(crate) fn push(id: u64, trace: u64) {
    let _ = STACK.try_with(|s| {
        if let Ok(mut s) = s.try_borrow_mut() {
            s.push((id, trace));
        }
    });
}

/// Removes `id` from this thread's stack: normally the top; a guard dropped
/// out of order (moved, or forgotten) is removed wherever it is.
pub(crate) fn pop(id: u64) {
    let _ = STACK.try_with(|s| {
        if let Ok(mut s) = s.try_borrow_mut() {
            match s.last() {
                Some((top, _)) if *top == id => {
                    s.pop();
                }
                _ => s.retain(|(i, _)| *i != id),
            }
        }
    });
}
