//! Contained panics are printed once per place, then only counted.
//!
//! A sink whose `emit` panics is contained (counted in
//! `elide::stats().sink_panics`), but the panic hook still runs for every
//! one: a sink panicking on each record would print a message and a
//! backtrace per record. So elide wraps the hook it finds at start-up: a
//! panic raised while this thread emits a record (dispatching it, or on an
//! async writer thread) goes to the previous hook the first time it is
//! raised at its source location (which stands for the sink), followed by
//! one line saying where it was raised (in a sink, or in a logged value's
//! `Debug`/`Display`, see `contain::formatting_values`) and that further
//! ones are only counted; past `PLACES` places, all are only counted.
//! Other panics go to the previous hook as before. Built with
//! `panic = "abort"` every panic is printed, and the line says that the
//! process aborts. A hook installed after elide's replaces this one.
//!
//! Statics owned here: `ONCE` (the hook's installation) and `PLACES_SEEN`.

use std::panic::Location;
use std::sync::{Mutex, Once};

/// Most distinct places printed.
const PLACES: usize = 64;

static PLACES_SEEN: Mutex<Vec<String>> = Mutex::new(Vec::new());

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
            let emitting = super::inside_a_sink();
            let aborts = cfg!(panic = "abort");
            if !emitting || aborts || first_at(info.location()) {
                previous(info);
                if emitting {
                    let in_value = crate::contain::formatting_values_here();
                    let _ =
                        crate::os::process::write_stderr(explanation(in_value, aborts).as_bytes());
                }
            }
        }));
    });
}

/// The line after a panic raised while a record was being emitted: where
/// (`in_value`: in a logged value's `Debug`/`Display`, else in a sink) and
/// what follows (`aborts`: the build's panics abort, else it is contained).
fn explanation(in_value: bool, aborts: bool) -> String {
    let place = match in_value {
        true => "in the Debug or Display of a value being logged",
        false => "inside a sink",
    };
    let next = match (in_value, aborts) {
        (_, true) => "; built with panic = \"abort\", the process aborts",
        (true, false) => ", and contained: that sink dropped the record",
        (false, false) => " and contained",
    };
    let counted = if aborts {
        ""
    } else {
        "; further panics there are only counted in elide::stats()"
    };
    format!("elide: the panic above was raised {place}{next}{counted}\n")
}

/// Whether this is the first contained panic at its location (and there is
/// room to remember it).
fn first_at(location: Option<&Location<'_>>) -> bool {
    location.is_some_and(|l| crate::stats::first_time(&PLACES_SEEN, &l.to_string(), PLACES))
}

#[cfg(test)]
mod tests {
    use super::explanation;

    #[test]
    fn a_values_panic_is_never_called_a_sinks() {
        for aborts in [false, true] {
            let (value, sink) = (explanation(true, aborts), explanation(false, aborts));
            assert!(!value.contains("inside a sink"), "{value}");
            assert!(value.contains("Debug or Display"), "{value}");
            assert!(sink.contains("inside a sink"), "{sink}");
            assert_eq!(value.contains("aborts"), aborts, "{value}");
            assert_eq!(sink.contains("contained"), !aborts, "{sink}");
        }
    }
}
