//! Spans as a crate migrating from `tracing` writes them: `use elide as
//! tracing;`, nested `info_span!`, `#[instrument]` on a method, events
//! inside; the chain in the lines a file sink writes (compact and JSON),
//! in captured records, and on events bridged from `tracing`. Tests here
//! replace the global sinks, so they run one at a time.

use std::sync::Arc;

use elide::format::Format;
use elide::sink::AsyncSink;
use elide_tests::{serial, YieldOnce};

/// Code written for `tracing`, unchanged but for the `use`.
mod migrated {
    use elide as tracing;

    use tracing::{debug, info, info_span, warn};

    #[derive(Debug)]
    pub(crate) struct Conn {
        pub(crate) id: u32,
    }

    impl Conn {
        #[tracing::instrument(skip(self), fields(id = %self.id), err, level = "debug")]
        pub(crate) fn send(&self, bytes: usize) -> Result<usize, String> {
            debug!(bytes = 3, "sending");
            if bytes > 100 {
                return Err(format!("{bytes} bytes is too many"));
            }
            Ok(bytes)
        }
    }

    pub(crate) fn serve() {
        let outer = info_span!("server", bytes = 1, port = 8080);
        let _o = outer.enter();
        let _c = info_span!("conn", peer = "10.0.0.1").entered();
        info!(bytes = 2, "accepted");
        let conn = Conn { id: 7 };
        let _ = conn.send(5);
        let _ = conn.send(500);
        tracing::Span::current().in_scope(|| warn!("still in conn"));
    }
}

fn lines(path: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// The chain, outermost first, each span with its own fields, before the
/// message; a key in several spans and the event (`bytes`) stays apart.
#[test]
fn migrated_code_writes_the_span_chain_in_compact_and_json() {
    let _s = serial();
    let dir = std::env::temp_dir().join(format!("elide-spans-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (compact, json) = (dir.join("compact.log"), dir.join("json.log"));
    let (rings, wrapped) = (dir.join("rings.log"), dir.join("wrapped.log"));
    let file = |path: &std::path::Path, format| {
        elide::sink::FileSink::open(path)
            .unwrap()
            .with_format(format)
    };
    let sinks: [Arc<dyn elide::Sink>; 4] = [
        Arc::new(file(&compact, Format::Compact)),
        Arc::new(file(&json, Format::Json)),
        // The chain crosses to an async sink's writer thread, through its
        // rings and through a wrapped sink.
        Arc::new(
            AsyncSink::builder()
                .format(Format::Compact)
                .open(&rings)
                .unwrap(),
        ),
        Arc::new(AsyncSink::wrap(Arc::new(file(&wrapped, Format::Compact)))),
    ];
    elide::set_sinks(sinks);
    elide::set_level(elide::LevelFilter::Trace);
    migrated::serve();
    elide::flush();
    elide::set_level(elide::LevelFilter::Error);

    let compact = lines(&compact);
    let ends = [
        " server{bytes=1 port=8080}:conn{peer=10.0.0.1}: accepted bytes=2",
        " server{bytes=1 port=8080}:conn{peer=10.0.0.1}:send{bytes=5 id=7}: sending bytes=3",
        " server{bytes=1 port=8080}:conn{peer=10.0.0.1}:send{bytes=500 id=7}: sending bytes=3",
        " server{bytes=1 port=8080}:conn{peer=10.0.0.1}:send{bytes=500 id=7}: error=\"500 bytes is too many\"",
        " server{bytes=1 port=8080}:conn{peer=10.0.0.1}: still in conn",
    ];
    assert_eq!(compact.len(), ends.len(), "{compact:#?}");
    for path in [&rings, &wrapped] {
        let lines = lines(path);
        assert_eq!(lines.len(), ends.len(), "{path:?}: {lines:#?}");
        for (line, end) in compact.iter().chain(&lines).zip(ends.iter().cycle()) {
            assert!(line.ends_with(end), "{line:?} should end with {end:?}");
        }
    }

    let json: Vec<serde_json::Value> = lines(&json)
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let sending = &json[1];
    assert_eq!(sending["fields"], serde_json::json!({"bytes": 3}));
    assert_eq!(
        sending["spans"],
        serde_json::json!([
            {"name": "server", "fields": {"bytes": 1, "port": 8080}},
            {"name": "conn", "fields": {"peer": "10.0.0.1"}},
            {"name": "send", "fields": {"bytes": "5", "id": "7"}},
        ])
    );
    // Outside every span: no chain.
    elide::set_sinks([]);
    let records = elide::testing::capture(|| elide::warn!("alone"));
    assert!(records[0].span.is_none());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A span whose level is off is `Span::none()`: entering it adds nothing
/// to the chain, and its fields are not evaluated.
#[test]
fn a_span_below_the_level_is_none_and_evaluates_nothing() {
    let _s = serial();
    elide::set_sinks([]);
    let evaluated = std::cell::Cell::new(false);
    let side = || {
        evaluated.set(true);
        1
    };
    let span = elide::trace_span!("quiet", n = side());
    assert!(span.is_none());
    assert!(!evaluated.get());
    let records = elide::testing::capture(|| {
        let _e = elide::info_span!("kept").entered();
        span.in_scope(|| elide::warn!("inside"));
    });
    let chain = records[0].span.as_ref().unwrap();
    assert_eq!(format!("{chain:?}"), "kept");
}

/// Every span macro makes a span of its level, name, target and fields
/// (`span!` with the level as a path, the five level macros), and each is
/// `none` when its level is off.
#[test]
fn each_span_macro_makes_a_span_of_its_level() {
    use elide::Level;
    let _s = serial();
    let mem = Arc::new(elide::sink::MemorySink::new());
    elide::set_sinks([mem.clone() as Arc<dyn elide::Sink>]);
    elide::set_level(elide::LevelFilter::Debug);
    {
        let spans = [
            elide::span!(Level::INFO, "any", k = 1),
            elide::span!(target: "app::db", Level::WARN, "targeted"),
            elide::error_span!("e", k = 2),
            elide::warn_span!("w"),
            elide::info_span!("i"),
            elide::debug_span!("d"),
        ];
        for span in &spans {
            span.in_scope(|| elide::info!("in"));
        }
        assert!(elide::trace_span!("t").is_none());
        assert!(elide::span!(Level::TRACE, "t").is_none());
    }
    elide::set_sinks([]);
    let records = mem.records();
    let seen: Vec<(Level, &str, &str, String)> = records
        .iter()
        .map(|r| {
            let s = r.span.as_ref().expect("each record is in its span");
            (s.level(), s.name(), s.target(), format!("{s:?}"))
        })
        .collect();
    let here = module_path!();
    assert_eq!(
        seen,
        [
            (Level::Info, "any", here, "any{k=1}".to_owned()),
            (Level::Warn, "targeted", "app::db", "targeted".to_owned()),
            (Level::Error, "e", here, "e{k=2}".to_owned()),
            (Level::Warn, "w", here, "w".to_owned()),
            (Level::Info, "i", here, "i".to_owned()),
            (Level::Debug, "d", here, "d".to_owned()),
        ]
    );
}

/// What `f` logs through `tracing`, under a registry with elide's layer
/// and no sink but the capture.
fn bridged(f: impl FnOnce()) -> elide::testing::Captured<()> {
    use tracing_subscriber::layer::SubscriberExt;
    elide::set_sinks([]);
    let subscriber = tracing_subscriber::registry().with(elide::bridge::tracing::layer());
    elide::testing::capture(|| tracing::subscriber::with_default(subscriber, f))
}

/// Events bridged from `tracing` carry every span they are in, outermost
/// first, each with its own fields (a `record` on a span included), and no
/// span field flattened into the event's.
#[test]
fn bridged_tracing_events_carry_the_whole_chain() {
    let _s = serial();
    let records = bridged(|| {
        let outer = tracing::info_span!("outer", a = 1, b = tracing::field::Empty);
        let _o = outer.enter();
        let inner = tracing::info_span!("inner", b = 2);
        outer.record("b", 9);
        let _i = inner.enter();
        tracing::warn!(b = 3, "nested event");
    });
    let r = records.assert_logged(elide::Level::Warn, "nested event");
    assert_eq!(r.fields.len(), 1, "{r}");
    r.assert_field("b", 3);
    let chain = r.span.as_ref().unwrap();
    assert_eq!(format!("{chain:?}"), "outer{a=1 b=9}:inner{b=2}");
}

/// A bridged event's chain follows the spans its thread is in as they are
/// entered and exited: none before and after, the outer span alone once
/// the inner one is exited, still the span after one of two nested enters
/// of it is exited, and an explicit `parent:` outside any entered span.
#[test]
fn bridged_tracing_events_follow_enter_and_exit() {
    let _s = serial();
    let records = bridged(|| {
        tracing::info!("e1 before any");
        let outer = tracing::info_span!("outer", a = 1);
        {
            let _o = outer.enter();
            {
                let _i = tracing::info_span!("inner").entered();
                tracing::info!("e2 in both");
            }
            tracing::info!("e3 in outer");
            {
                let _again = outer.enter();
            }
            tracing::info!("e4 nested enter exited");
        }
        tracing::info!("e5 all exited");
        tracing::info!(parent: &outer, "e6 explicit parent");
    });
    let chain = |text: &str| {
        records
            .assert_logged(elide::Level::Info, text)
            .span
            .as_ref()
            .map(|c| format!("{c:?}"))
    };
    assert_eq!(chain("e1 "), None);
    assert_eq!(chain("e2 ").as_deref(), Some("outer{a=1}:inner"));
    assert_eq!(chain("e3 ").as_deref(), Some("outer{a=1}"));
    assert_eq!(chain("e4 ").as_deref(), Some("outer{a=1}"));
    assert_eq!(chain("e5 "), None);
    assert_eq!(chain("e6 ").as_deref(), Some("outer{a=1}"));
}

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    struct Noop;
    impl std::task::Wake for Noop {
        fn wake(self: Arc<Self>) {}
    }
    let waker = std::task::Waker::from(Arc::new(Noop));
    let mut cx = std::task::Context::from_waker(&waker);
    let mut f = std::pin::pin!(f);
    loop {
        if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

#[elide::instrument(ret, name = "fetch.page", target = "app::fetch")]
async fn fetch(page: u32) -> u32 {
    YieldOnce::new().await;
    elide::info!("fetched");
    page * 2
}

/// An instrumented `async fn`: the span is entered while the future is
/// polled, across `.await`; `ret` logs the value in the span, under the
/// given target, name and level.
#[test]
fn an_instrumented_async_fn_carries_its_span_across_await() {
    let _s = serial();
    elide::set_sinks([]);
    let records = elide::testing::capture(|| {
        assert_eq!(block_on(fetch(4)), 8);
        elide::info!("after");
    });
    let fetched = records.assert_logged(elide::Level::Info, "fetched");
    assert_eq!(
        format!("{:?}", fetched.span.as_ref().unwrap()),
        "fetch.page{page=4}"
    );
    assert_eq!(fetched.span.as_ref().unwrap().target(), "app::fetch");
    let ret = &records[1];
    assert_eq!(ret.target, "app::fetch");
    ret.assert_field("return", 8);
    assert!(ret.span.is_some());
    assert!(records[2].span.is_none(), "{}", records[2]);
}

#[elide::instrument(err, ret)]
fn parse_boxed(s: &str) -> Result<u32, Box<dyn std::error::Error>> {
    Ok(s.parse::<u32>()?)
}

/// `err` and `ret` on a function whose error is converted by `?` into a
/// boxed error: the body's type comes from the signature, not the body.
#[test]
fn err_and_ret_with_a_converting_question_mark() {
    let _s = serial();
    elide::set_sinks([]);
    let records = elide::testing::capture(|| {
        assert_eq!(parse_boxed("7").unwrap(), 7);
        assert!(parse_boxed("x").is_err());
    });
    records[0].assert_field("return", 7);
    records[1].assert_field("error", "invalid digit found in string");
}

#[elide::instrument(ret)]
fn opaque(n: u32) -> impl std::fmt::Debug {
    n * 3
}

/// `ret` on a function returning `impl Trait` (whose type cannot be
/// named in the expansion) logs the value all the same.
#[test]
fn ret_logs_an_impl_trait_return_value() {
    let _s = serial();
    elide::set_sinks([]);
    let records = elide::testing::capture(|| {
        let _ = opaque(5);
    });
    records[0].assert_field("return", 15);
}

#[elide::instrument(ret(Display), err(Debug))]
fn greet(name: &str) -> Result<String, String> {
    match name {
        "" => Err("no name".to_owned()),
        n => Ok(format!("hello {n}")),
    }
}

/// `ret(Display)` and `err(Debug)` choose the trait the value is logged
/// through (a `String` reads `hello ann` by `Display`, `"no name"` by
/// `Debug`).
#[test]
fn ret_and_err_log_through_the_trait_asked_for() {
    let _s = serial();
    elide::set_sinks([]);
    let records = elide::testing::capture(|| {
        let _ = greet("ann");
        let _ = greet("");
    });
    assert_eq!(records.len(), 2, "{records:?}");
    records[0].assert_field("return", "hello ann");
    records[1].assert_field("error", "\"no name\"");
}

#[elide::timed(skip(limit), fields(limit = limit), err(Debug), level = "debug")]
fn parse(limit: usize) -> Result<usize, std::num::ParseIntError> {
    let n: usize = "x7".parse()?;
    Ok(n.min(limit))
}

/// `#[timed]` takes `#[instrument]`'s arguments: its scope has the
/// declared fields, and `err` logs the error.
#[test]
fn timed_takes_instrument_arguments() {
    let _s = serial();
    elide::set_sinks([]);
    elide::set_telemetry(true);
    let records = elide::testing::capture(|| {
        assert!(parse(3).is_err());
    });
    elide::set_telemetry(false);
    records.assert_event("parse_start").assert_field("limit", 3);
    records.assert_event("parse_stop");
    records
        .assert_logged(elide::Level::Error, "")
        .assert_field("error", "ParseIntError { kind: InvalidDigit }");
}

#[elide::instrument(err, ret, fields(n = n + 100))]
fn half(n: u32) -> Result<u32, String> {
    if n % 2 == 1 {
        return Err(format!("{n} is odd"));
    }
    Ok(n / 2)
}

#[elide::instrument(skip_all, fields(len = data.len()))]
fn digest(key: &str, data: &[u8]) -> usize {
    elide::info!("digesting");
    key.len() + data.len()
}

/// `skip_all` leaves every argument out of the span; declared fields stay.
#[test]
fn skip_all_keeps_only_the_declared_fields() {
    let _s = serial();
    elide::set_sinks([]);
    let records = elide::testing::capture(|| {
        assert_eq!(digest("secret", b"abc"), 9);
    });
    let r = records.assert_logged(elide::Level::Info, "digesting");
    assert_eq!(format!("{:?}", r.span.as_ref().unwrap()), "digest{len=3}");
}

/// With `err` and `ret`, an `Ok` logs its value and an `Err` the error
/// (as `tracing` does), each in the function's span; a declared field
/// named like an argument replaces the argument's.
#[test]
fn err_and_ret_log_the_ok_value_or_the_error() {
    let _s = serial();
    elide::set_sinks([]);
    let records = elide::testing::capture(|| {
        let _ = half(4);
        let _ = half(3);
    });
    assert_eq!(records.len(), 2, "{records:?}");
    records[0].assert_field("return", 2);
    // A declared field named like an argument replaces it: one key.
    assert_eq!(
        format!("{:?}", records[0].span.as_ref().unwrap()),
        "half{n=104}"
    );
    assert_eq!(records[1].level, elide::Level::Error);
    records[1].assert_field("error", "3 is odd");
}
