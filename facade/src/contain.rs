//! Containing a panic of the user's code (a sink's `emit` or `flush`, an
//! output's `write`) so that it never reaches the caller or ends a writer
//! thread.
//!
//! `catch_unwind` alone is not enough: it hands back the panic's payload,
//! and dropping that payload runs the user's `Drop`, which may panic again,
//! this time outside any containment. Payloads are therefore dropped under a
//! second `catch_unwind`, and one whose drop panicked is leaked.

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Runs `f`: its value, or `None` if it panicked (the panic contained, its
/// payload dropped safely). Callers count the panic as they see fit.
pub(crate) fn contained<T>(f: impl FnOnce() -> T) -> Option<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(value) => Some(value),
        Err(payload) => {
            drop_payload(payload);
            None
        }
    }
}

/// Drops a contained panic's payload; leaks it if its drop panics too (the
/// second panic's payload, from `panic!` or `panic_any`, is leaked as well
/// rather than risk a third).
#[cold]
#[inline(never)]
pub(crate) fn drop_payload(payload: Box<dyn Any + Send>) {
    if let Err(again) = catch_unwind(AssertUnwindSafe(move || drop(payload))) {
        std::mem::forget(again);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A payload whose drop panics, counting its drops.
    struct Bomb(&'static std::sync::atomic::AtomicU32);

    impl Drop for Bomb {
        fn drop(&mut self) {
            self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            panic!("the payload's drop panicked");
        }
    }

    #[test]
    fn a_value_passes_through_and_a_panic_becomes_none() {
        assert_eq!(contained(|| 7), Some(7));
        assert_eq!(contained(|| -> u8 { panic!("plain") }), None);
    }

    #[test]
    fn a_payload_whose_drop_panics_stays_contained() {
        static DROPS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let outcome =
            std::panic::catch_unwind(|| contained(|| std::panic::panic_any(Bomb(&DROPS))));
        assert_eq!(outcome.ok(), Some(None), "no panic got out");
        assert_eq!(
            DROPS.load(std::sync::atomic::Ordering::Relaxed),
            1,
            "dropped once"
        );
    }
}
