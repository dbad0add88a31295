//! Where a library's records go before the application sets elide up: the
//! logger the application already uses. Until `init`/`init_ns` (or sinks
//! installed through the API), elide's records go to the global `tracing`
//! dispatcher when one is set (feature `tracing`), else to the `log` logger
//! when one is set (feature `log`), else to elide's own `LOG_TGT` sinks.
//!
//! tracing first: an application that set a tracing subscriber up with
//! tracing-subscriber's `init` (default features) has a `log` logger too,
//! tracing-log's `LogTracer`, which forwards into that subscriber what
//! `log` can carry: the message, without fields or span chain. Going to
//! the dispatcher directly keeps both.
//!
//! Decided once, when elide first reads the environment (the first site
//! that resolves), and undone by `init`: the check costs nothing at a site.
//! The runtime asks through the crate root (`host_logger_sink`), since the
//! bridges sit above it.
//! The level that no variable names is then the application logger's most
//! verbose level, so what that logger filters out is not even formatted.

use std::sync::Arc;

use crate::record::level::LevelFilter;
use crate::sink::Sink;

/// The sink forwarding to the application's logger and that logger's most
/// verbose level, if the application set one up.
pub(crate) fn sink() -> Option<(Arc<dyn Sink>, LevelFilter)> {
    // A global `tracing` dispatcher; its level is tracing's own global
    // maximum.
    #[cfg(feature = "tracing")]
    if tracing_core::dispatcher::has_been_set() {
        let level = tracing_core::LevelFilter::current().into_level();
        let level = level.map_or(LevelFilter::Off, |l| {
            super::tracing::from_tracing(&l).into()
        });
        return Some((Arc::new(super::tracing::TracingSink::new()), level));
    }
    // A `log` logger counts as set when it is not elide's own and `log`'s
    // maximum level is not `Off` (where `log` starts: a logger that set no
    // level would see nothing anyway).
    #[cfg(feature = "log")]
    if ::log::max_level() != ::log::LevelFilter::Off && !super::log::is_installed() {
        let sink = super::log::LogSink::new();
        let level = sink.max_level();
        return Some((Arc::new(sink), level));
    }
    None
}
