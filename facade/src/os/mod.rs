//! Facts of the process and its machine, read once and cached where that
//! is safe: the `process` (its id, fork and exit), the cheap `clock`, the
//! `host` name, and memory `pages` (huge pages for large buffers). Nothing
//! here knows about records or sinks.

#[cfg(feature = "async")]
pub(crate) mod clock;
#[cfg(any(feature = "prof", feature = "otlp"))]
pub(crate) mod host;
#[cfg(feature = "async")]
pub(crate) mod pages;
pub(crate) mod process;
