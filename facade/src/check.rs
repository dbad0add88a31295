//! What a failed debug check does.

use std::fmt;
use std::sync::atomic::{AtomicU8, Ordering};

use crate::callsite::Callsite;
use crate::record::Record;
use crate::Level;

/// The reaction to a failed `check!`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckFailure {
    /// Log the failure at error level, then panic (the default: a failed
    /// invariant stops the task, like a Python `TypeCheckError`).
    Panic,
    /// Log the failure at error level and continue. For services that must
    /// stay up; the code after the check then runs on a broken invariant.
    Log,
}

static POLICY: AtomicU8 = AtomicU8::new(0);

/// Chooses what a failed check does (default [`CheckFailure::Panic`]).
pub fn set_check_failure(policy: CheckFailure) {
    POLICY.store(policy as u8, Ordering::Relaxed);
}

/// The current check-failure policy.
pub fn check_failure() -> CheckFailure {
    match POLICY.load(Ordering::Relaxed) {
        0 => CheckFailure::Panic,
        _ => CheckFailure::Log,
    }
}

/// Runs a check site's condition on the cold path. `verdict` returns `None`
/// when the check holds, or the operand details when it fails.
#[cold]
#[inline(never)]
#[track_caller]
pub fn check<V, M>(cs: &'static Callsite, verdict: V, message: M)
where
    V: FnOnce() -> Option<String>,
    M: FnOnce(&mut dyn FnMut(fmt::Arguments<'_>)),
{
    if cs.current() == 0 {
        return;
    }
    let Some(details) = verdict() else { return };
    let meta = cs.metadata();
    let mut text = String::new();
    message(&mut |args| text = args.to_string());
    let mut line = format!("check failed: `{}`", meta.name());
    if !details.is_empty() {
        line.push_str(" (");
        line.push_str(&details);
        line.push(')');
    }
    if !text.is_empty() {
        line.push_str(": ");
        line.push_str(&text);
    }
    crate::dispatch::dispatch(&Record::new(
        meta,
        Level::Error,
        format_args!("{line}"),
        &[],
    ));
    if check_failure() == CheckFailure::Panic {
        panic!("{}:{}: {line}", meta.file(), meta.line());
    }
}

/// Details for a failed `check_eq!`.
pub fn check_eq_details<L: fmt::Debug + PartialEq<R> + ?Sized, R: fmt::Debug + ?Sized>(
    l: &L,
    r: &R,
) -> Option<String> {
    if *l == *r {
        None
    } else {
        Some(format!("left: {l:?}, right: {r:?}"))
    }
}

/// Details for a failed `check_ne!`.
pub fn check_ne_details<L: fmt::Debug + PartialEq<R> + ?Sized, R: fmt::Debug + ?Sized>(
    l: &L,
    r: &R,
) -> Option<String> {
    if *l != *r {
        None
    } else {
        Some(format!("both: {l:?}"))
    }
}
