//! Facts of the process and its machine, read once and cached where that
//! is safe: the `process` (its id, fork and exit), the cheap `clock`, and
//! the `host` name. Nothing here knows about records or sinks.

#[cfg(feature = "async")]
pub(crate) mod clock;
#[cfg(any(feature = "prof", feature = "otlp"))]
pub(crate) mod host;
pub(crate) mod process;
