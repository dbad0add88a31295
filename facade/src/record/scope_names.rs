//! The names a timed scope's events use: data shared by the scope runtime
//! (telemetry) and the sinks that read scopes back (OTLP spans).

/// Field name of a scope's id on its events.
pub(crate) const SCOPE_FIELD: &str = "scope";
/// Field name of the parent scope's id (absent on a root scope).
pub(crate) const PARENT_FIELD: &str = "parent";
/// Field name of the root scope's id (the trace a scope belongs to).
pub(crate) const TRACE_FIELD: &str = "trace";
/// Field name of the duration, in nanoseconds, on a stop event.
pub(crate) const DURATION_FIELD: &str = "duration_ns";
/// Suffix of a scope's opening event name.
pub(crate) const START_SUFFIX: &str = "_start";
/// Suffix of a scope's closing event name.
pub(crate) const STOP_SUFFIX: &str = "_stop";
