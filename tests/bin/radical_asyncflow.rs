//! A real binary for the debug-mode environment tests. Its crate is named
//! `radical_asyncflow`, so every site in it has a namespace under
//! `RADICAL_ASYNCFLOW`, as in the service this models: `check!`,
//! `#[checked]` and `debug_mode!()` all use their module path.
//!
//! Prints one line, `check=<ran> checked=<ran> debug_mode=<bool>`, where
//! `ran` says whether the condition was evaluated.

use std::sync::atomic::{AtomicUsize, Ordering};

static CHECK_RAN: AtomicUsize = AtomicUsize::new(0);
static CHECKED_RAN: AtomicUsize = AtomicUsize::new(0);

mod engine {
    use super::*;

    #[elide::checked(requires(CHECKED_RAN.fetch_add(1, Ordering::Relaxed) < usize::MAX))]
    pub fn submit(n: u32) -> u32 {
        n + 1
    }

    pub(crate) fn run() -> bool {
        elide::check!(CHECK_RAN.fetch_add(1, Ordering::Relaxed) < usize::MAX);
        elide::debug_mode!()
    }
}

fn main() {
    let _guard = elide::init();
    let debug = engine::run();
    assert_eq!(engine::submit(1), 2);
    println!(
        "check={} checked={} debug_mode={debug}",
        CHECK_RAN.load(Ordering::Relaxed) > 0,
        CHECKED_RAN.load(Ordering::Relaxed) > 0,
    );
}
