//! Turning the `LOG_TGT` targets into sinks (the one impure step: files are
//! opened here), written as `LOG_MODE` says.

use std::ffi::OsString;
use std::sync::Arc;

use super::lookup::Warning;
use super::parse::Target;
use crate::format::Format;
use crate::sink::{ConsoleSink, FileMode, FileSink, Sink};
use crate::LevelFilter;

/// One sink per target. `null` adds none. Files are a buffered
/// [`FileSink`] without a `mode`, else opened in that [`FileMode`]. A file
/// that cannot be opened is reported once (naming `var` and its `raw`
/// value) and replaced by stderr.
pub(crate) fn build(
    targets: &[Target],
    mode: Option<FileMode>,
    var: &str,
    raw: &OsString,
) -> Vec<Arc<dyn Sink>> {
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
            Target::File(path) => match open(path, mode) {
                Ok(f) => sinks.push(f),
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

fn open(path: &std::path::Path, mode: Option<FileMode>) -> std::io::Result<Arc<dyn Sink>> {
    match mode {
        None => Ok(Arc::new(FileSink::open(path)?)),
        Some(mode) => mode.open(path, Format::Radical, LevelFilter::Trace),
    }
}
