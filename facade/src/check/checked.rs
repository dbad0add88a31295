//! Run-time support for `#[elide::checked]` functions.
//!
//! A checked function owns one `Callsite` (kind `Check`) for its module. On
//! entry the hot path loads its interest once; when debug mode is off that is
//! the whole cost, and the body runs as written. When it is on (or the site
//! is not resolved yet), [`enter`] resolves the site and runs the
//! preconditions, and its answer also decides whether the postconditions run
//! after the body, so the function never loads the interest twice.

use std::future::Future;

use crate::site::callsite::Callsite;

/// Cold entry of a checked function: resolves the site and, if debug mode is
/// on for it, runs the preconditions. Returns whether checks are on for this
/// call (the postconditions run exactly when the preconditions did).
#[cold]
#[inline(never)]
pub fn enter<F: FnOnce()>(cs: &'static Callsite, preconditions: F) -> bool {
    if crate::runtime::current(cs) == 0 {
        return false;
    }
    preconditions();
    true
}

/// Cold exit of a checked function: runs the postconditions.
#[cold]
#[inline(never)]
pub fn exit<F: FnOnce()>(postconditions: F) {
    postconditions()
}

/// Runs a postcondition closure on the return value. Taking the closure
/// through a generic bound lets `|ret| ..` infer `ret: &R` without an
/// annotation.
#[inline(always)]
pub fn ensures<R: ?Sized, F: FnOnce(&R) -> bool>(ret: &R, condition: F) -> bool {
    condition(ret)
}

/// Type-checks a postcondition in a statically disabled function (never
/// called, generates no code).
#[inline(always)]
pub fn type_check_ensures<R: ?Sized, F: FnOnce(&R) -> bool>(_: F) {}

/// Runs a wrapped function body, so `return` and `?` inside it leave the
/// body but not the function, and the postconditions still run. The expected
/// return type flows into the closure through `R`; the `FnOnce` bound lets
/// the body move out of its captures (e.g. return a borrow of `&mut self`).
#[inline(always)]
pub fn body<R, F: FnOnce() -> R>(f: F) -> R {
    f()
}

/// The async twin of [`body`]: pins the output type of the wrapped `async`
/// block to the function's, so `?` inside it knows what to convert into.
#[inline(always)]
pub fn async_body<R, F: Future<Output = R>>(f: F) -> F {
    f
}
