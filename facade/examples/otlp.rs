//! Sends logs, a telemetry event, timed scopes and counters to an
//! OpenTelemetry collector over OTLP/HTTP.
//!
//! ```text
//! OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 OTEL_SERVICE_NAME=demo \
//!     cargo run -p elide --features otlp --example otlp
//! ```
//! Without a collector the run still ends, after the bounded retries, and
//! says what it could not send.

use std::sync::Arc;
use std::time::Duration;

#[elide::timed(name = "task.exec", uid = %uid)]
fn exec(uid: &str) {
    let _s = elide::scope!("task.stage_in", uid = %uid);
    std::thread::sleep(Duration::from_millis(5));
    elide::counter!("tasks.done");
}

fn main() {
    let Some(otlp) = elide::sink::OtlpSink::from_env() else {
        return; // the warning named the variable
    };
    let otlp = Arc::new(otlp);
    elide::set_sinks([otlp.clone() as Arc<dyn elide::Sink>]);
    elide::set_level(elide::LevelFilter::Info);
    elide::set_telemetry(true);

    for i in 0..3 {
        let uid = format!("task.{i:06}");
        elide::info!(uid = %uid, "starting {uid}");
        exec(&uid);
        elide::telemetry!("task.state", uid = %uid, state = "DONE");
    }
    elide::flush();
    println!("sent to {}: {:?}", otlp.endpoint(), otlp.stats());
}
