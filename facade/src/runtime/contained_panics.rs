//! Contained panics are printed once per place, then only counted.
//!
//! A sink whose `emit` panics is contained (the caller never sees the
//! panic, `elide::stats().sink_panics` counts it), but the panic hook still
//! runs for every one: a sink that panics on each record would print a
//! panic message (and a backtrace) per record. So elide wraps the panic
//! hook it finds at start-up: a panic raised while this thread is inside a
//! sink (dispatching a record, or on an async writer thread, where every
//! call into a sink is contained) goes to the previous hook the first time
//! it is raised at that source location, followed by one line saying
//! further ones are counted; later panics there are only counted. Panics
//! anywhere else go to the previous hook as before.
//!
//! The place stands for the sink: a given sink panics in its own code. At
//! most `PLACES` places are remembered; past that, contained panics are
//! only counted. A hook installed after elide's replaces this one (and its
//! own choice applies).
//!
//! Statics owned here: `ONCE` (the hook's installation) and `PLACES_SEEN`.

use std::panic::Location;
use std::sync::{Mutex, Once};

/// Most distinct places printed.
const PLACES: usize = 64;

static PLACES_SEEN: Mutex<Vec<(String, u32, u32)>> = Mutex::new(Vec::new());

/// Wraps the current panic hook, once per process.
pub(crate) fn install() {
    static ONCE: Once = Once::new();
    // `take_hook` panics on a panicking thread: try again on a later call.
    if std::thread::panicking() {
        return;
    }
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !contained() || first_at(info.location()) {
                previous(info);
                if contained() {
                    let _ = crate::process::write_stderr(
                        b"elide: the panic above was raised inside a sink and contained; \
                          further panics there are only counted in elide::stats()\n",
                    );
                }
            }
        }));
    });
}

/// Whether a panic here will be contained: this thread is inside a sink
/// (dispatching, or an async writer).
fn contained() -> bool {
    crate::dispatch::in_dispatch()
}

/// Whether this is the first contained panic at its location (and there is
/// room to remember it).
fn first_at(location: Option<&Location<'_>>) -> bool {
    let Some(loc) = location else {
        return false;
    };
    // In a forked child the set may be held for good: then only count.
    let Some(mut seen) = crate::process::lock(&PLACES_SEEN) else {
        return false;
    };
    let place = (loc.file(), loc.line(), loc.column());
    if seen.len() >= PLACES || seen.iter().any(|(f, l, c)| (f.as_str(), *l, *c) == place) {
        return false;
    }
    seen.push((place.0.to_owned(), place.1, place.2));
    true
}
