//! Containing a panic of the user's code (a sink's `emit` or `flush`, an
//! output's `write`) so that it never reaches the caller or ends a writer
//! thread.
//!
//! `catch_unwind` alone is not enough: dropping the payload it hands back
//! runs the user's `Drop`, which may panic again outside any containment;
//! so payloads are dropped under a second `catch_unwind`, and leaked if
//! that panics.
//!
//! It also marks where elide runs the logged values' `Debug` and `Display`
//! ([`formatting_values`]), so the panic hook can tell a panic there from
//! the sink's own (and, under `panic = "abort"`, still flush that sink).
//!
//! Statics owned here: the per-thread `FORMATTING` mark.

use std::any::Any;
use std::cell::Cell;
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

thread_local! {
    /// Whether this thread is inside [`formatting_values`].
    static FORMATTING: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f`, which formats a record's message or fields: the `Debug` and
/// `Display` code it calls is the values', so a panic in `f` is not the
/// calling sink's. The mark is taken off again also when `f` unwinds.
#[inline]
pub(crate) fn formatting_values<T>(f: impl FnOnce() -> T) -> T {
    /// Puts back the mark as it was (so a nested call leaves it on).
    struct Restore(bool);
    impl Drop for Restore {
        #[inline]
        fn drop(&mut self) {
            let _ = FORMATTING.try_with(|m| m.set(self.0));
        }
    }
    let _restore = Restore(FORMATTING.try_with(|m| m.replace(true)).unwrap_or(false));
    f()
}

/// Whether this thread is formatting a record's values now (for the panic
/// hook: a panic raised here came from a value's `Debug` or `Display`).
pub(crate) fn formatting_values_here() -> bool {
    FORMATTING.try_with(Cell::get).unwrap_or(false)
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
    fn the_formatting_mark_is_on_inside_and_off_after_a_panic() {
        assert!(!formatting_values_here());
        assert!(formatting_values(|| formatting_values(
            formatting_values_here
        )));
        assert!(formatting_values(|| {
            formatting_values(|| ());
            formatting_values_here()
        }));
        assert!(!formatting_values_here());
        let caught = std::panic::catch_unwind(|| formatting_values(|| panic!("a value's Debug")));
        assert!(caught.is_err());
        assert!(!formatting_values_here(), "an unwinding panic takes it off");
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
