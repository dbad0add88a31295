//! Child process for the bridge tests: a program whose dependency
//! (`chatty-dep`) logs through `log` and `tracing`, set up one way per mode.
//! `bridge_child <mode>`; the environment configures elide as usual.

use std::sync::Arc;

use elide::bridge::log::LogSink;
use elide::bridge::tracing::TracingSink;
use elide::LevelFilter;
use tracing_subscriber::layer::SubscriberExt;

fn main() {
    let mode = std::env::args().nth(1).unwrap_or_default();
    match mode.as_str() {
        // Dependencies' log and tracing records into elide's sinks.
        "inbound" => {
            let _guard = elide::init();
            elide::bridge::tracing::init().expect("no subscriber yet");
            println!("log_bridge={}", elide::bridge::log::is_installed());
            println!("max_level={}", log::max_level());
            chatty_dep::work(3);
            elide::set_level_for("some::other", LevelFilter::Trace);
            println!("max_level_after={}", log::max_level());
        }
        // elide records into the application's tracing_subscriber::fmt.
        "tracing-out" => {
            tracing_subscriber::fmt()
                .with_writer(std::io::stdout)
                .with_ansi(false)
                .init();
            elide::set_sinks([Arc::new(TracingSink::new()) as Arc<dyn elide::Sink>]);
            elide::set_level(LevelFilter::Info);
            elide::warn!(
                uid = 7,
                state = "RUNNING",
                ratio = 0.5,
                "elide: hello tracing"
            );
            elide::debug!("elide: not wanted");
        }
        // elide records into the application's env_logger.
        "log-out" => {
            env_logger::Builder::from_env("RUST_LOG")
                .target(env_logger::Target::Stdout)
                .init();
            elide::set_sinks([Arc::new(LogSink::new()) as Arc<dyn elide::Sink>]);
            elide::set_level(LevelFilter::Info);
            elide::warn!(uid = 7, "elide: hello log");
            elide::debug!("elide: not wanted");
        }
        // Both directions of both bridges at once.
        "both" => {
            let _guard = elide::init();
            let subscriber = tracing_subscriber::registry()
                .with(elide::bridge::tracing::layer())
                .with(
                    tracing_subscriber::fmt::layer()
                        .with_writer(std::io::stdout)
                        .with_ansi(false),
                );
            tracing::subscriber::set_global_default(subscriber).expect("no subscriber yet");
            elide::add_sink(Arc::new(TracingSink::new()));
            elide::add_sink(Arc::new(LogSink::new()));
            elide::warn!(target: "chatty_dep::app", "elide: both ways");
            chatty_dep::work(1);
            // Nothing an outbound sink forwarded came back in (it would be
            // dropped as nested).
            println!("nested_dropped={}", elide::stats().nested_dropped);
        }
        other => panic!("unknown mode {other:?}"),
    }
}
