//! Behaviour of a process that configured nothing (run without RADICAL_*
//! variables, as CI does): level Error, debug mode and telemetry off.

use std::sync::Arc;

use elide::sink::MemorySink;
use elide::{LevelFilter, Sink};

#[test]
fn an_unconfigured_process_logs_errors_only() {
    let mem = Arc::new(MemorySink::new());
    elide::set_sinks([mem.clone() as Arc<dyn Sink>]);
    assert_eq!(elide::level_for("any::module"), LevelFilter::Error);
    elide::error!("kept");
    elide::warn!("dropped");
    elide::info!("dropped");
    assert!(!elide::debug_for("any::module"));
    let mut ran = false;
    elide::check!({
        ran = true;
        true
    });
    assert!(!ran, "checks do not run outside debug mode");
    elide::telemetry!("evt", n = 1);
    assert_eq!(mem.messages(), ["kept"]);
}
