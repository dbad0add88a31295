//! Process initialisation and the flush-on-drop guard.

use std::sync::{Arc, OnceLock};

use crate::sink::ConsoleSink;

static INIT: OnceLock<()> = OnceLock::new();

/// Reads the process configuration once and installs the default sinks if
/// none were installed. Called lazily by the first site that resolves.
pub(crate) fn ensure() {
    INIT.get_or_init(|| {
        crate::dispatch::install_initial(vec![Arc::new(ConsoleSink::stderr())]);
    });
}

/// Initialises elide now instead of at the first call site, and returns a
/// guard that flushes every sink when dropped. Keep it alive in `main`.
///
/// ```
/// let _guard = elide::init();
/// elide::error!("written to stderr");
/// ```
#[must_use = "dropping the guard flushes the sinks; keep it until the end of main"]
pub fn init() -> Guard {
    ensure();
    Guard { _private: () }
}

/// Flushes all sinks when dropped, and closes the `.prof` sinks installed
/// by [`telemetry::enable`](crate::telemetry::enable) and friends.
#[derive(Debug)]
pub struct Guard {
    _private: (),
}

impl Drop for Guard {
    fn drop(&mut self) {
        crate::dispatch::flush();
        // `.prof` files get their END line, flush and fsync.
        crate::telemetry::close();
    }
}
