//! What a failed debug check does.
//!
//! Statics owned here: `POLICY` (the [`CheckFailure`] in force).
//!
//! This folder holds the debug checks: the failure policy (here) and
//! `checked`, the wrapper of `#[checked]` functions.

pub(crate) mod checked;

use std::fmt;
use std::sync::atomic::{AtomicU8, Ordering};

use crate::record::level::Level;
use crate::record::metadata::Metadata;
use crate::record::Record;
use crate::site::callsite::Callsite;

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
/// when the check holds, or the operand details (empty for `check!`) when it
/// fails; `message` hands the site's formatted message to its argument.
///
/// `#[track_caller]` makes the panic point at the `check!` in the user's code,
/// not at this function.
#[cold]
#[inline(never)]
#[track_caller]
pub fn check<V, M>(cs: &'static Callsite, verdict: V, message: M)
where
    V: FnOnce() -> Option<String>,
    M: FnOnce(&mut dyn FnMut(fmt::Arguments<'_>)),
{
    // The hot path sends unresolved sites here too: resolve, and skip if
    // debug mode turns out to be off.
    if crate::runtime::current(cs) == 0 {
        return;
    }
    let Some(details) = verdict() else { return };
    fail(cs.metadata(), "check failed", &details, message);
}

/// Reports a failed condition: one record at error level to the sinks, then,
/// under [`CheckFailure::Panic`], a panic with `file:line`, `what`, the
/// condition text (the site's name), the details and the message.
///
/// Shared by `check!`, `check_eq!`, `check_ne!` and `#[checked]`.
#[cold]
#[inline(never)]
#[track_caller]
pub fn fail<M>(meta: &'static Metadata, what: &str, details: &str, message: M)
where
    M: FnOnce(&mut dyn FnMut(fmt::Arguments<'_>)),
{
    let mut text = String::new();
    // A site without a message never calls back: `text` stays empty and the
    // line ends after the condition.
    message(&mut |args| {
        use fmt::Write;
        let _ = text.write_fmt(args);
    });
    let mut line = format!("{what}: `{}`", meta.name());
    if !details.is_empty() {
        line.push_str(" (");
        line.push_str(details);
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
        // The panic may abort the process (`panic = "abort"`): get the
        // record out of buffered sinks first (not from inside a sink: the
        // shutdown never re-enters one; the panic is contained there).
        crate::runtime::shutdown(crate::runtime::Shutdown::Flush);
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
