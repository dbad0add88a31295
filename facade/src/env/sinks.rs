//! Turning the `LOG_TGT` targets into sinks (the one impure step: files are
//! opened here).

use std::ffi::OsString;
use std::sync::Arc;

use super::lookup::Warning;
use super::parse::Target;
use crate::sink::{ConsoleSink, FileSink, Sink};

/// One sink per target. `null` adds none. A file that cannot be opened is
/// reported once (naming `var` and its `raw` value) and replaced by stderr.
pub(crate) fn build(targets: &[Target], var: &str, raw: &OsString) -> Vec<Arc<dyn Sink>> {
    let mut sinks: Vec<Arc<dyn Sink>> = Vec::new();
    let mut stderr = false;
    let mut add_stderr = |sinks: &mut Vec<Arc<dyn Sink>>| {
        if !std::mem::replace(&mut stderr, true) {
            sinks.push(Arc::new(ConsoleSink::stderr()));
        }
    };
    for t in targets {
        match t {
            Target::Stdout => sinks.push(Arc::new(ConsoleSink::stdout())),
            Target::Stderr => add_stderr(&mut sinks),
            Target::Null => {}
            Target::File(path) => match FileSink::open(path) {
                Ok(f) => sinks.push(Arc::new(f)),
                Err(e) => {
                    super::warn_once(&Warning {
                        var: var.to_owned(),
                        raw: raw.clone(),
                        reason: format!("cannot open {}: {e}", path.display()),
                        fallback: "stderr for this target".to_owned(),
                    });
                    add_stderr(&mut sinks);
                }
            },
        }
    }
    sinks
}
