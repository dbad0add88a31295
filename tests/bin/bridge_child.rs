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
            elide::bridge::tracing::install().expect("no subscriber yet");
            println!("log_bridge={}", elide::bridge::log::is_installed());
            println!("max_level={}", log::max_level());
            chatty_dep::work(3);
            elide::set_level_for("some::other", LevelFilter::Trace);
            println!("max_level_after={}", log::max_level());
        }
        // A dependency logs through the bridges and nothing raises the
        // level: its records stop at log's and tracing's own level checks.
        "quiet-dep" => {
            let _guard = elide::init();
            elide::bridge::tracing::install().expect("no subscriber yet");
            chatty_dep::work(1);
        }
        // elide records into the application's tracing_subscriber::fmt.
        "tracing-out" => {
            tracing_subscriber::fmt()
                .with_writer(std::io::stdout)
                .with_ansi(false)
                .with_file(true)
                .with_line_number(true)
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
            // A run-time site has no file or line: none is shown.
            elide::emit(
                "runtime::place",
                elide::Level::Warn,
                &[],
                format_args!("elide: no place"),
            );
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
        // What a `log` user asks the installed logger directly: whether a
        // level is enabled for a target, and `flush`.
        "log-queries" => {
            let path = std::env::args().nth(2).expect("file path");
            let _guard = elide::init();
            let file = elide::sink::FileSink::open(&path)
                .expect("open file")
                .with_flush_level(LevelFilter::Off);
            elide::set_sinks([Arc::new(file) as Arc<dyn elide::Sink>]);
            elide::set_level(LevelFilter::Info);
            elide::set_level_for("quiet", LevelFilter::Off);
            let asks = |target: &str, level| {
                log::logger().enabled(&log::Metadata::builder().target(target).level(level).build())
            };
            println!("app_info={}", asks("app", log::Level::Info));
            println!("app_debug={}", asks("app", log::Level::Debug));
            println!("quiet_error={}", asks("quiet", log::Level::Error));
            log::info!(target: "app", "buffered until flushed");
            let before = std::fs::read_to_string(&path).unwrap_or_default();
            println!(
                "written_before_flush={}",
                before.contains("buffered until flushed")
            );
            log::logger().flush();
            let after = std::fs::read_to_string(&path).unwrap_or_default();
            println!(
                "written_after_flush={}",
                after.contains("buffered until flushed")
            );
        }
        // tracing events of each level and integer kind into elide, and a
        // callsite whose level elide raises at run time.
        "tracing-in" => {
            let _guard = elide::init();
            elide::bridge::tracing::install().expect("no subscriber yet");
            let memory = Arc::new(elide::sink::MemorySink::new());
            elide::set_sinks([memory.clone() as Arc<dyn elide::Sink>]);
            elide::set_level(LevelFilter::Info);
            for round in 0..2 {
                if round == 1 {
                    elide::set_level(LevelFilter::Debug);
                }
                tracing::debug!(round, "same site");
            }
            tracing::error!(n = -5i64, "an error");
            tracing::debug!(
                big = 1i128 << 100,
                huge = u128::MAX,
                ratio = 0.25f64,
                "a debug"
            );
            tracing::trace!("a trace");
            // A span field recorded after the span was made reaches the
            // events inside it.
            let span = tracing::info_span!("job", id = 9u64, stage = tracing::field::Empty);
            span.record("stage", "load");
            span.in_scope(|| tracing::info!(rows = 3u64, "in a span"));
            // The message in each form tracing gives it: format arguments,
            // a string field, none; a number named `message` stays a field.
            tracing::info!("args {} {:?} then", 7, "q");
            tracing::info!(message = "a str message", k = 1u64);
            tracing::info!(k = 2u64);
            tracing::info!(message = 5u64);
            // What tracing-log's `LogTracer` makes of a `log` record, with
            // the message as a string field.
            tracing::event!(target: "log", tracing::Level::INFO, { log.target = "legacy::m", message = "a str from log" });
            // tracing's global level filter is elide's most verbose level.
            println!(
                "tracing_max_level={}",
                tracing::level_filters::LevelFilter::current()
            );
            // What a `tracing` user asks before building an event.
            println!("trace_enabled={}", tracing::enabled!(tracing::Level::TRACE));
            println!("debug_enabled={}", tracing::enabled!(tracing::Level::DEBUG));
            // A namespace elide turned off is off for `tracing` too, though
            // the global level lets the event's level through.
            elide::set_level_for("quiet", LevelFilter::Off);
            println!(
                "quiet_enabled={}",
                tracing::enabled!(target: "quiet", tracing::Level::INFO)
            );
            // With a second dispatcher (another thread's default) that wants
            // everything, tracing caches "sometimes" for a new callsite and
            // asks each subscriber per event: elide's layer still says no.
            let (ready, wait) = std::sync::mpsc::channel();
            let (done, finish) = std::sync::mpsc::channel::<()>();
            let other = std::thread::spawn(move || {
                let _d = tracing::dispatcher::set_default(&tracing::Dispatch::new(WantsAll));
                ready.send(()).unwrap();
                let _ = finish.recv();
            });
            wait.recv().unwrap();
            elide::set_level_for("quiet2", LevelFilter::Off);
            println!(
                "quiet2_enabled={}",
                tracing::enabled!(target: "quiet2", tracing::Level::INFO)
            );
            done.send(()).unwrap();
            other.join().unwrap();
            for r in memory.records() {
                let span = r.span.map(|s| format!(" in {s:?}")).unwrap_or_default();
                println!("{:?} {} {:?}{span}", r.level, r.message, r.fields);
            }
        }
        // elide records into an application's own `log` logger, which
        // shows what it is given and when it is flushed.
        "log-out-custom" => {
            struct Shows;
            impl log::Log for Shows {
                fn enabled(&self, _: &log::Metadata<'_>) -> bool {
                    true
                }
                fn log(&self, r: &log::Record<'_>) {
                    println!("{} {:?} {:?} {}", r.level(), r.file(), r.line(), r.args());
                }
                fn flush(&self) {
                    println!("flushed");
                }
            }
            log::set_logger(&Shows).expect("no logger yet");
            log::set_max_level(log::LevelFilter::Trace);
            elide::set_sinks([Arc::new(LogSink::new()) as Arc<dyn elide::Sink>]);
            elide::set_level(LevelFilter::Info);
            elide::warn!("elide: with a place");
            elide::flush();
        }
        // A test capture on one thread while the process level is Error:
        // `log` and `tracing` records of every level from the capturing
        // thread, nothing below Error from a thread outside it.
        "capture" => {
            let _guard = elide::init();
            elide::bridge::tracing::install().expect("no subscriber yet");
            let memory = Arc::new(elide::sink::MemorySink::new());
            elide::set_sinks([memory.clone() as Arc<dyn elide::Sink>]);
            println!("max_level_before={}", log::max_level());
            // One tracing callsite, off before the capture (tracing caches
            // "never"), then hit inside it and after it.
            let same_site = |when: &str| tracing::info!("same site {when}");
            same_site("before");
            let records = elide::testing::capture(|| {
                same_site("inside");
                log::error!("log error");
                log::warn!("log warn");
                log::info!("log info");
                log::debug!("log debug");
                log::trace!("log trace");
                tracing::warn!("tracing warn");
                tracing::trace!("tracing trace");
                std::thread::spawn(|| {
                    log::warn!("outside warn");
                    tracing::warn!("outside tracing warn");
                    log::error!("outside error");
                })
                .join()
                .unwrap();
            });
            same_site("after");
            for r in records.iter() {
                println!("captured {:?} {}", r.level, r.message);
            }
            for r in memory.records() {
                println!("installed {:?} {}", r.level, r.message);
            }
            println!("max_level_after={}", log::max_level());
            println!(
                "tracing_max_level_after={}",
                tracing::level_filters::LevelFilter::current()
            );
        }
        // elide records of 262,144 field-name combinations (3 names out of
        // 64) forwarded to a tracing subscriber, then records at a site of
        // thousands of names; what the subscriber got for the last ones,
        // the callsites made and the memory.
        "tracing-shapes" => {
            tracing::subscriber::set_global_default(Fields).expect("no subscriber yet");
            elide::set_sinks([Arc::new(TracingSink::new()) as Arc<dyn elide::Sink>]);
            elide::set_level(LevelFilter::Info);
            let names: Vec<&'static str> = (0..64).map(|i| leak(format!("k{i}"))).collect();
            let rss_before = rss_kb();
            for i in 0..300_000usize {
                let pick = |shift: usize| names[(i >> shift) % 64];
                let fields = [
                    (pick(0), elide::Value::U64(i as u64)),
                    (pick(6), elide::Value::Str("s")),
                    (pick(12), elide::Value::I64(-1)),
                ];
                elide::emit("shapes", elide::Level::Info, &fields, format_args!("r"));
            }
            let rss_after = rss_kb();
            println!("rss_kb={rss_before} -> {rss_after}");
            println!("rss_growth_kb={}", rss_after - rss_before);
            println!("callsites={}", elide::bridge::tracing::forward_callsites());
            elide::emit(
                "shapes",
                elide::Level::Info,
                &[
                    ("k63", elide::Value::Bool(true)),
                    ("k5", elide::Value::U64(7)),
                    ("k9", elide::Value::Str("nine")),
                ],
                format_args!("check late"),
            );
            // A site of 30,000 names, 3 new ones a record: past every bound.
            let wide: Vec<&'static str> = (0..30_000).map(|i| leak(format!("w{i}"))).collect();
            for chunk in wide.chunks(3) {
                let fields: Vec<elide::Field<'_>> =
                    chunk.iter().map(|n| (*n, elide::Value::U64(1))).collect();
                elide::emit("wide", elide::Level::Warn, &fields, format_args!("w"));
            }
            println!(
                "callsites_wide={}",
                elide::bridge::tracing::forward_callsites()
            );
            elide::emit(
                "wide",
                elide::Level::Warn,
                &[
                    ("w0", elide::Value::U64(5)),
                    ("late", elide::Value::Str("x y")),
                ],
                format_args!("check wide"),
            );
            elide::emit(
                "other",
                elide::Level::Warn,
                &[("k1", elide::Value::I64(-2))],
                format_args!("check new site"),
            );
        }
        // Where bridged records were logged: file, line and module path,
        // as `log` and `tracing` hand them over.
        "place" => {
            let _guard = elide::init();
            elide::bridge::tracing::install().expect("no subscriber yet");
            let memory = Arc::new(elide::sink::MemorySink::new());
            elide::set_sinks([memory.clone() as Arc<dyn elide::Sink>]);
            elide::set_level(LevelFilter::Info);
            chatty_dep::work(1);
            // A record built at run time, its file not `'static`: no place.
            let file = String::from("generated.rs");
            log::logger().log(
                &log::Record::builder()
                    .args(format_args!("log: built by hand"))
                    .level(log::Level::Warn)
                    .target("handmade")
                    .file(Some(&file))
                    .line(Some(3))
                    .build(),
            );
            log::logger().log(
                &log::Record::builder()
                    .args(format_args!("log: static place"))
                    .level(log::Level::Warn)
                    .target("handmade")
                    .module_path_static(Some("handmade::inner"))
                    .file_static(Some("src/inner.rs"))
                    .line(Some(77))
                    .build(),
            );
            for r in memory.records() {
                println!(
                    "{} | {}:{} | {} | {}",
                    r.message, r.file, r.line, r.module_path, r.target
                );
            }
        }
        // An application's own registry with elide's layer, installed
        // after `elide::init()` the ways tracing-subscriber offers (its
        // `tracing-log` feature, on by default, is on in this build).
        "registry-after-init" => {
            use tracing_subscriber::util::SubscriberInitExt;
            let how = std::env::args().nth(2).expect("how");
            let _guard = elide::init();
            let registry = tracing_subscriber::registry().with(elide::bridge::tracing::layer());
            match how.as_str() {
                "set_global_default" => {
                    tracing::subscriber::set_global_default(registry).expect("no subscriber yet");
                }
                "try_init" => match registry.try_init() {
                    Ok(()) => println!("try_init=ok"),
                    Err(e) => println!("try_init=err: {e}"),
                },
                // Panics: the `log` logger is elide's already.
                "init" => registry.init(),
                other => panic!("unknown way {other:?}"),
            }
            println!("log_bridge={}", elide::bridge::log::is_installed());
            chatty_dep::work(3);
            elide::warn!("elide: own record");
        }
        // The registry's `init()` first, then `elide::init()`: the `log`
        // logger is tracing-log's (`init` leaves it in place), so `log`
        // records reach elide through the layer as `LogTracer` events.
        "registry-before-init" => {
            use tracing_subscriber::util::SubscriberInitExt;
            tracing_subscriber::registry()
                .with(elide::bridge::tracing::layer())
                .init();
            let _guard = elide::init();
            println!("log_bridge={}", elide::bridge::log::is_installed());
            chatty_dep::work(3);
            elide::warn!("elide: own record");
        }
        other => panic!("unknown mode {other:?}"),
    }
}

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

/// This process's resident memory, in kB.
fn rss_kb() -> i64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS")
}

/// A subscriber that prints the target and the fields of each event whose
/// message starts with `check`, as tracing hands them over.
struct Fields;

impl tracing::Subscriber for Fields {
    fn register_callsite(
        &self,
        _: &'static tracing::Metadata<'static>,
    ) -> tracing::subscriber::Interest {
        tracing::subscriber::Interest::always()
    }
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        struct Show(String);
        impl tracing::field::Visit for Show {
            fn record_debug(&mut self, f: &tracing::field::Field, v: &dyn std::fmt::Debug) {
                self.0 += &format!(" {}={v:?}", f.name());
            }
        }
        let mut show = Show(String::new());
        event.record(&mut show);
        if show.0.starts_with(" message=check") {
            println!("event {}:{}", event.metadata().target(), show.0);
        }
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

/// A subscriber that wants every event and keeps none: a second dispatcher
/// for the `tracing-in` mode.
struct WantsAll;

impl tracing::Subscriber for WantsAll {
    fn register_callsite(
        &self,
        _: &'static tracing::Metadata<'static>,
    ) -> tracing::subscriber::Interest {
        tracing::subscriber::Interest::always()
    }
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, _: &tracing::Event<'_>) {}
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}
