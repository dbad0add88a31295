//! Log sites: gating, argument evaluation, fields, formats, sink swaps and
//! re-entrancy. Tests that change process-wide configuration or sinks run
//! one at a time under `serial()`; tests that only read back what a site
//! produced use a scoped capture (`elide::testing`) and run in parallel
//! with each other under `shared()` (which only keeps them from registering
//! sites while a serial test counts registrations).

use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock, RwLockReadGuard, RwLockWriteGuard};

use elide::sink::{MemorySink, NullSink, OwnedValue};
use elide::testing::{self, Capture};
use elide::{debug, enabled, error, info, log, trace, warn, Level, LevelFilter, Sink};

static LOCK: RwLock<()> = RwLock::new(());

fn serial() -> RwLockWriteGuard<'static, ()> {
    LOCK.write().unwrap_or_else(|e| e.into_inner())
}

fn shared() -> RwLockReadGuard<'static, ()> {
    LOCK.read().unwrap_or_else(|e| e.into_inner())
}

/// Installs a fresh memory sink (capturing every level) and a level.
fn capture(level: LevelFilter) -> Arc<MemorySink> {
    let mem = Arc::new(MemorySink::new());
    elide::set_sinks([mem.clone() as Arc<dyn Sink>]);
    elide::set_level(level);
    mem
}

fn bump(n: &AtomicUsize) -> usize {
    n.fetch_add(1, Ordering::SeqCst)
}

#[test]
fn runtime_off_site_never_evaluates_arguments() {
    let _s = serial();
    let mem = capture(LevelFilter::Info);
    let evaluated = AtomicUsize::new(0);
    for _ in 0..10 {
        debug!(field = bump(&evaluated), "message {}", bump(&evaluated));
        trace!("{}", bump(&evaluated));
    }
    assert_eq!(evaluated.load(Ordering::SeqCst), 0);
    assert!(mem.is_empty());

    info!(field = bump(&evaluated), "message {}", bump(&evaluated));
    assert_eq!(evaluated.load(Ordering::SeqCst), 2);
    assert_eq!(mem.len(), 1);
}

#[test]
fn site_off_because_no_sink_wants_the_level() {
    let _s = serial();
    let mem = Arc::new(MemorySink::new().with_level(LevelFilter::Info));
    elide::set_sinks([mem.clone() as Arc<dyn Sink>]);
    elide::set_level(LevelFilter::Trace);
    let evaluated = AtomicUsize::new(0);
    debug!("{}", bump(&evaluated));
    assert_eq!(evaluated.load(Ordering::SeqCst), 0, "no sink wants debug");
    assert!(!enabled!(Level::Debug));
    assert!(enabled!(Level::Info));

    // A second sink that wants debug turns the same site on.
    let verbose = Arc::new(MemorySink::new());
    elide::add_sink(verbose.clone());
    debug!("{}", bump(&evaluated));
    assert_eq!(evaluated.load(Ordering::SeqCst), 1);
    assert_eq!(verbose.len(), 1);
    assert!(mem.is_empty(), "the info sink must not get debug records");
}

#[inline(never)]
fn site_under_test(n: u32) {
    debug!(n, "hit {n}");
}

#[test]
fn changing_the_level_rewrites_cached_sites() {
    let _s = serial();
    let mem = capture(LevelFilter::Error);
    site_under_test(1); // resolves and caches "off"
    elide::set_level(LevelFilter::Debug);
    site_under_test(2);
    elide::set_level(LevelFilter::Warn);
    site_under_test(3);
    elide::set_level(LevelFilter::Trace);
    site_under_test(4);
    assert_eq!(mem.messages(), ["hit 2", "hit 4"]);
}

#[test]
fn per_namespace_levels_use_the_most_specific_rule() {
    let _s = serial();
    let mem = capture(LevelFilter::Info);
    elide::set_level_for("app::db", LevelFilter::Trace);
    elide::set_level_for("app::db::noisy", LevelFilter::Error);
    trace!(target: "app::db", "db trace");
    trace!(target: "app::db::pool", "pool trace");
    warn!(target: "app::db::noisy", "noisy warn");
    error!(target: "app::db::noisy", "noisy error");
    debug!(target: "app::web", "web debug");
    info!(target: "app::dbx", "dbx info"); // not under app::db
    trace!(target: "app::dbx", "dbx trace");
    assert_eq!(
        mem.messages(),
        ["db trace", "pool trace", "noisy error", "dbx info"]
    );
    // Namespaces written with dots or dashes name the same thing.
    elide::set_level_for("app.web", LevelFilter::Debug);
    debug!(target: "app::web", "web debug 2");
    assert_eq!(mem.messages().last().unwrap(), "web debug 2");
    elide::set_level_for("app::db", LevelFilter::Info);
    elide::set_level_for("app::db::noisy", LevelFilter::Info);
    elide::set_level_for("app::web", LevelFilter::Info);
}

struct Shown(u32);
impl fmt::Display for Shown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "shown-{}", self.0)
    }
}

#[derive(Debug)]
#[allow(dead_code)]
struct Inspected {
    id: u32,
}

#[test]
fn fields_keep_their_kinds() {
    let _s = shared();
    let uid = "task.000001";
    let owned = String::from("owned");
    let records = testing::capture(|| {
        info!(
            a = 1,
            b = -2i32,
            c = 1.5,
            d = true,
            e = "text",
            f = %Shown(3),
            g = ?Inspected { id: 9 },
            uid,
            big = u64::MAX,
            task.state = owned,
            ch = 'x',
            "fields"
        )
    });
    let r = records.assert_logged(Level::Info, "fields");
    assert_eq!(r.field("a"), Some(&OwnedValue::I64(1)));
    assert_eq!(r.field("b"), Some(&OwnedValue::I64(-2)));
    assert_eq!(r.field("c"), Some(&OwnedValue::F64(1.5)));
    assert_eq!(r.field("d"), Some(&OwnedValue::Bool(true)));
    assert_eq!(r.field("e"), Some(&OwnedValue::Str("text".into())));
    assert_eq!(r.field("f"), Some(&OwnedValue::Display("shown-3".into())));
    assert_eq!(
        r.field("g"),
        Some(&OwnedValue::Debug("Inspected { id: 9 }".into()))
    );
    assert_eq!(r.field("uid"), Some(&OwnedValue::Str(uid.into())));
    assert_eq!(r.field("big"), Some(&OwnedValue::U64(u64::MAX)));
    assert_eq!(
        r.field("task.state"),
        Some(&OwnedValue::Str("owned".into()))
    );
    assert_eq!(r.field("ch"), Some(&OwnedValue::Char('x')));
    let names: Vec<_> = r.fields.iter().map(|(k, _)| *k).collect();
    assert_eq!(
        names,
        [
            "a",
            "b",
            "c",
            "d",
            "e",
            "f",
            "g",
            "uid",
            "big",
            "task.state",
            "ch"
        ]
    );
}

#[test]
fn format_strings_support_full_format_args_syntax() {
    let _s = shared();
    let x = 5;
    let name = "n";
    let records = testing::capture(|| {
        info!("{} {1} {0}", 1, 2);
        info!("{x} {name:>3} {y}", y = 7);
        info!("{:?} {:.2} {:#x}", "q", 1.23456, 255);
        info!("{{literal braces}}");
        info!(k = 1);
    });
    assert_eq!(
        records.messages(),
        [
            "1 2 1",
            "5   n 7",
            "\"q\" 1.23 0xff",
            "{literal braces}",
            ""
        ]
    );
}

#[test]
fn log_macro_takes_fixed_and_runtime_levels() {
    let _s = shared();
    let capture = Capture::with_level(LevelFilter::Info);
    log!(Level::Warn, "fixed warn");
    log!(elide::Level::Debug, "fixed debug");
    for lvl in Level::ALL {
        log!(lvl, n = lvl.as_u8(), "dynamic {lvl}");
    }
    log!(target: "custom::target", Level::Error, "targeted");
    let recs = capture.finish();
    let got: Vec<_> = recs.iter().map(|r| (r.level, r.message.as_str())).collect();
    assert_eq!(
        got,
        [
            (Level::Warn, "fixed warn"),
            (Level::Error, "dynamic ERROR"),
            (Level::Warn, "dynamic WARN"),
            (Level::Info, "dynamic INFO"),
            (Level::Error, "targeted"),
        ]
    );
    assert_eq!(recs[4].target, "custom::target");
    assert_eq!(recs[0].module_path, module_path!());
    assert_eq!(recs[0].file, file!());
}

/// Sites that take their route themselves (a run-time level, a run-time
/// target, sampling) compare against the configured level on their own:
/// a record at exactly that level is emitted, one level above is not.
#[test]
fn self_routed_sites_emit_at_exactly_the_configured_level() {
    let _s = serial();
    let mem = capture(LevelFilter::Info);
    let target = String::from("app::runtime_target");
    for lvl in [Level::Info, Level::Debug] {
        log!(lvl, "run-time level {lvl}");
        log!(target: target.as_str(), lvl, "run-time target {lvl}");
    }
    info!(target: target.as_str(), "run-time target info!");
    debug!(target: target.as_str(), "run-time target debug!");
    info!(first = 1, "sampled info");
    debug!(first = 1, "sampled debug");
    assert_eq!(
        mem.messages(),
        [
            "run-time level INFO",
            "run-time target INFO",
            "run-time target info!",
            "sampled info"
        ]
    );
}

/// A site with a run-time target whose level no namespace allows neither
/// evaluates its target expression nor its arguments (it does not look the
/// target up); once a namespace allows the level, the same site emits, and a
/// test capture on the thread still sees it while it is off.
#[test]
fn an_off_run_time_target_evaluates_nothing_until_a_namespace_wants_it() {
    let _s = serial();
    let mem = capture(LevelFilter::Info);
    let targets = AtomicUsize::new(0);
    let args = AtomicUsize::new(0);
    let target = String::from("plugins::loader");
    let hit = || {
        debug!(
            target: {
                bump(&targets);
                target.as_str()
            },
            "loaded {}",
            bump(&args)
        )
    };
    hit();
    assert_eq!(
        (targets.load(Ordering::SeqCst), args.load(Ordering::SeqCst)),
        (0, 0)
    );
    assert!(mem.messages().is_empty());

    let run = testing::capture(hit);
    run.assert_logged(Level::Debug, "loaded 0");
    assert_eq!(run.records[0].target, "plugins::loader");
    assert!(mem.messages().is_empty(), "the capture alone wanted it");

    elide::set_level_for("plugins", LevelFilter::Debug);
    hit();
    elide::set_level_for("plugins", LevelFilter::Info);
    assert_eq!(mem.messages(), ["loaded 1"]);
    assert_eq!(args.load(Ordering::SeqCst), 2);
}

/// `enabled!` with a run-time target answers as the site would: no, without
/// evaluating the target, at a level no namespace allows; yes inside a test
/// capture, and once a namespace allows it (a fixed level and one known
/// only at run time alike).
#[test]
fn enabled_with_a_run_time_target_evaluates_it_only_when_a_namespace_may_want_it() {
    let _s = serial();
    let _mem = capture(LevelFilter::Info);
    let targets = AtomicUsize::new(0);
    let target = String::from("plugins::probe");
    let level = Level::Debug;
    let ask = || {
        let t = || {
            bump(&targets);
            target.as_str()
        };
        (
            enabled!(target: t(), Level::Debug),
            enabled!(target: t(), level),
        )
    };
    assert_eq!(ask(), (false, false));
    assert_eq!(targets.load(Ordering::SeqCst), 0);
    assert_eq!(testing::capture(ask).value, (true, true));
    elide::set_level_for("plugins", LevelFilter::Debug);
    let on = ask();
    elide::set_level_for("plugins", LevelFilter::Info);
    assert_eq!(on, (true, true));
    assert_eq!(targets.load(Ordering::SeqCst), 4);
}

#[test]
fn enabled_answers_per_target_and_level() {
    let _s = serial();
    let _mem = capture(LevelFilter::Warn);
    assert!(enabled!(Level::Error));
    assert!(enabled!(Level::Warn));
    assert!(!enabled!(Level::Info));
    elide::set_level_for("loud", LevelFilter::Trace);
    assert!(enabled!(target: "loud::inner", Level::Trace));
    assert!(!enabled!(target: "quiet", Level::Info));
    let lvl = Level::Info;
    assert!(!enabled!(lvl));
    assert!(enabled!(target: "loud", lvl));
    elide::set_level_for("loud", LevelFilter::Warn);
}

/// A `Display` impl that logs from inside the sink's formatting.
struct Chatty;
impl fmt::Display for Chatty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        error!("nested from Display");
        f.write_str("chatty")
    }
}

/// A sink that logs while emitting.
struct LoggingSink(AtomicUsize);
impl Sink for LoggingSink {
    fn emit(&self, _: &elide::Record<'_>) {
        self.0.fetch_add(1, Ordering::SeqCst);
        error!("nested from a sink");
    }
}

#[test]
fn reentrant_emission_is_dropped_and_counted() {
    let _s = serial();
    let mem = capture(LevelFilter::Info);
    let before = elide::stats().nested_dropped;
    info!(v = %Chatty, "outer");
    assert_eq!(mem.len(), 1, "only the outer record is captured");
    assert_eq!(
        mem.records()[0].field("v"),
        Some(&OwnedValue::Display("chatty".into()))
    );
    assert_eq!(elide::stats().nested_dropped, before + 1);

    let sink = Arc::new(LoggingSink(AtomicUsize::new(0)));
    elide::set_sinks([sink.clone() as Arc<dyn Sink>]);
    for _ in 0..3 {
        error!("outer");
    }
    assert_eq!(sink.0.load(Ordering::SeqCst), 3);
    assert_eq!(elide::stats().nested_dropped, before + 4);

    // A nested call made while evaluating an argument is not inside a sink,
    // so it is delivered normally; the debug site outside it reaches the
    // capture only, the info site inside it the installed sink too.
    let mem = capture(LevelFilter::Info);
    let records = testing::capture(|| {
        debug!("outer {}", {
            info!("argument logs");
            1
        })
    });
    assert_eq!(records.messages(), ["argument logs", "outer 1"]);
    assert_eq!(mem.messages(), ["argument logs"]);
}

struct PanickingSink;
impl Sink for PanickingSink {
    fn emit(&self, _: &elide::Record<'_>) {
        panic!("sink bug");
    }
}

#[test]
fn a_panicking_sink_never_reaches_the_caller() {
    let _s = serial();
    let mem = Arc::new(MemorySink::new());
    elide::set_sinks([Arc::new(PanickingSink) as Arc<dyn Sink>, mem.clone()]);
    elide::set_level(LevelFilter::Info);
    let before = elide::stats().sink_panics;
    info!("still delivered");
    assert_eq!(elide::stats().sink_panics, before + 1);
    assert_eq!(mem.messages(), ["still delivered"]);

    // The only sink (the emit path's fast case) panics: contained, and the
    // thread is not left marked as inside a sink (the next record reaches
    // the sink again instead of being dropped as nested).
    elide::set_sinks([Arc::new(PanickingSink) as Arc<dyn Sink>]);
    let nested = elide::stats().nested_dropped;
    info!("first");
    info!("second");
    assert_eq!(elide::stats().sink_panics, before + 3);
    assert_eq!(elide::stats().nested_dropped, nested);
}

#[test]
fn sinks_can_be_swapped_while_other_threads_log() {
    let _s = serial();
    elide::set_level(LevelFilter::Info);
    let sinks: Vec<Arc<MemorySink>> = (0..4).map(|_| Arc::new(MemorySink::new())).collect();
    elide::set_sinks([sinks[0].clone() as Arc<dyn Sink>]);
    const PER_THREAD: usize = 20_000;
    let threads: Vec<_> = (0..2)
        .map(|t| {
            std::thread::spawn(move || {
                for i in 0..PER_THREAD {
                    info!(t, i, "x");
                }
            })
        })
        .collect();
    let mut k = 0;
    while !threads.iter().all(|t| t.is_finished()) {
        k += 1;
        elide::set_sinks([sinks[k % sinks.len()].clone() as Arc<dyn Sink>]);
        std::thread::yield_now();
    }
    for t in threads {
        t.join().unwrap();
    }
    let total: usize = sinks.iter().map(|s| s.len()).sum();
    assert_eq!(
        total,
        2 * PER_THREAD,
        "every record lands in exactly one sink"
    );
    elide::set_sinks([Arc::new(NullSink::new()) as Arc<dyn Sink>]);
}

#[test]
fn concurrent_first_hits_register_a_site_once() {
    let _s = serial();
    let capture = Capture::start();
    let before = elide::stats().sites;
    let barrier = Arc::new(std::sync::Barrier::new(4));
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let b = barrier.clone();
            testing::spawn(move || {
                b.wait();
                for _ in 0..100 {
                    info!("race");
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(elide::stats().sites, before + 1);
    assert_eq!(capture.finish().matching(Level::Info, "race").count(), 400);
}

#[test]
fn console_formats_write_one_line_per_record() {
    use elide::format::Format;
    let _s = serial();
    let mem = capture(LevelFilter::Info);
    // Format the captured record's origin again through each layout by
    // re-emitting into a formatting sink.
    struct Lines(Mutex<Vec<String>>, Format);
    impl Sink for Lines {
        fn emit(&self, r: &elide::Record<'_>) {
            let mut s = String::new();
            self.1.write(r, &mut s);
            self.0.lock().unwrap().push(s);
        }
    }
    let formats = [Format::Radical, Format::Json, Format::Compact];
    let sinks: Vec<Arc<Lines>> = formats
        .iter()
        .map(|f| Arc::new(Lines(Mutex::new(Vec::new()), *f)))
        .collect();
    elide::set_sinks(sinks.iter().map(|s| s.clone() as Arc<dyn Sink>));
    let evil = "a\nb\r\"c\u{1b}";
    warn!(
        v = evil,
        n = 3,
        f = f64::NAN,
        "msg {}\nINJECTED : line",
        evil
    );
    for s in &sinks {
        let lines = s.0.lock().unwrap();
        assert_eq!(lines.len(), 1);
        let line = &lines[0];
        assert!(line.ends_with('\n'));
        assert_eq!(line.matches('\n').count(), 1, "{line:?}");
        assert!(!line.contains('\r') && !line.contains('\u{1b}'), "{line:?}");
    }
    let radical = &sinks[0].0.lock().unwrap()[0];
    let parts: Vec<&str> = radical.splitn(6, " : ").collect();
    assert_eq!(parts.len(), 6, "{radical}");
    assert!(parts[0].parse::<f64>().is_ok() && parts[0].split('.').nth(1).unwrap().len() == 3);
    assert_eq!(parts[1], format!("{:<20}", module_path!()));
    assert_eq!(parts[2], format!("{:<5}", std::process::id()));
    assert_eq!(parts[4], "WARNING ");
    assert!(parts[5].starts_with("msg a\\nb\\r"), "{radical}");

    let json: serde_json::Value =
        serde_json::from_str(&sinks[1].0.lock().unwrap()[0]).expect("valid JSON");
    assert_eq!(json["level"], "WARN");
    assert_eq!(json["fields"]["v"], evil);
    assert_eq!(json["fields"]["n"], 3);
    assert_eq!(json["fields"]["f"], "NaN");
    assert_eq!(json["msg"], format!("msg {evil}\nINJECTED : line"));
    drop(mem);
}

/// Records whether each record carried a raw view of its message.
#[derive(Default)]
struct RawSeen(Mutex<Vec<(String, bool)>>);

impl Sink for RawSeen {
    fn emit(&self, r: &elide::Record<'_>) {
        let raw = elide::__private::record_raw(r).map(|raw| {
            let mut text = String::new();
            raw.with_arguments(&mut |a| text = a.to_string());
            text
        });
        let msg = r.args().to_string();
        if let Some(text) = &raw {
            assert_eq!(text, &msg, "the decoder formats the site's message");
        }
        let mut written = String::from("kept:");
        r.write_message(&mut written);
        assert_eq!(
            written,
            format!("kept:{msg}"),
            "write_message appends the same text"
        );
        self.0.lock().unwrap().push((msg, raw.is_some()));
    }
}

/// A type whose `Display` honours the formatter's width.
struct Padded;
impl std::fmt::Display for Padded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad("[pad]")
    }
}

/// Copyable arguments are offered raw, whether positional, named or
/// captured from the surrounding scope (and each argument is evaluated
/// once); a message with a non-copyable argument keeps the rendered message
/// only, and so does an argument used with two formatting traits. The text
/// is the site's `format_args!` text in every case.
#[test]
fn copyable_arguments_are_offered_raw_and_others_rendered() {
    let _s = serial();
    let seen = Arc::new(RawSeen::default());
    elide::set_sinks([seen.clone() as Arc<dyn Sink>]);
    elide::set_level(LevelFilter::Info);
    let evaluated = AtomicUsize::new(0);
    let name = String::from("n");
    let id = 7u64;
    info!("task {} done in {} us", id, bump(&evaluated));
    info!("{1:>4} {0:#x} {2:?} {3}", -1i8, 2.5f32, "q\"", 'c');
    info!("{} {}", name, &name);
    info!("{:?}", vec![1, 2]);
    info!("{id}");
    info!("{} {x}", id, x = 3);
    info!("static");
    info!("{{{}}} {:>6}|{:<4?}|", id, Padded, 'z');
    info!("{0} {0:?}", "t");
    // One argument used twice with the same trait is still one raw value.
    info!("{0}-{0}", id);
    // A captured variable whose name starts with `_` is captured like any.
    let _v = 5u8;
    info!("{_v}");
    // Up to 32 arguments go raw; a longer message is rendered.
    info!(
        "{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}",
        0,
        1,
        2,
        3,
        4,
        5,
        6,
        7,
        8,
        9,
        0,
        1,
        2,
        3,
        4,
        5,
        6,
        7,
        8,
        9,
        0,
        1,
        2,
        3,
        4,
        5,
        6,
        7,
        8,
        9,
        0,
        1
    );
    info!(
        "{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}",
        0,
        1,
        2,
        3,
        4,
        5,
        6,
        7,
        8,
        9,
        0,
        1,
        2,
        3,
        4,
        5,
        6,
        7,
        8,
        9,
        0,
        1,
        2,
        3,
        4,
        5,
        6,
        7,
        8,
        9,
        0,
        1,
        2
    );
    assert_eq!(evaluated.load(Ordering::SeqCst), 1, "evaluated once");
    let seen = seen.0.lock().unwrap().clone();
    let expect = [
        ("task 7 done in 0 us", true),
        (" 2.5 0xff \"q\\\"\" c", true),
        ("n n", true),
        ("[1, 2]", false),
        ("7", true),
        ("7 3", true),
        ("static", false),
    ];
    let mut expect: Vec<(String, bool)> = expect.iter().map(|(m, r)| (m.to_string(), *r)).collect();
    // What `format!` itself makes of the same format strings.
    expect.push((format!("{{{}}} {:>6}|{:<4?}|", id, Padded, 'z'), false));
    expect.push((format!("{0} {0:?}", "t"), false));
    expect.push(("7-7".to_string(), true));
    expect.push(("5".to_string(), true));
    expect.push(("01234567890123456789012345678901".to_string(), true));
    expect.push(("012345678901234567890123456789012".to_string(), false));
    assert_eq!(seen, expect);
}

/// A type with every numeric formatting trait but `Display` and `Debug`:
/// each placeholder must reach the trait its spec names.
struct Numeric(u32);
macro_rules! numeric {
    ($($t:ident),*) => {$(
        impl std::fmt::$t for Numeric {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                std::fmt::$t::fmt(&self.0, f)
            }
        }
    )*};
}
numeric!(LowerHex, UpperHex, Octal, Binary, LowerExp, UpperExp);

/// Every shape of format string a site may hold gives the text `format!`
/// gives, whether the format is kept as data (`{}` / `{:?}` only), as a
/// per-site decoder (any other spec) or rendered on the caller (borrowed
/// arguments), and the raw view (when there is one) gives it too.
#[test]
#[allow(clippy::borrow_deref_ref)] // `&*text` is the reborrow under test
fn messages_match_format_for_every_shape() {
    let _s = serial();
    let seen = Arc::new(RawSeen::default());
    elide::set_sinks([seen.clone() as Arc<dyn Sink>]);
    elide::set_level(LevelFilter::Info);
    let (n, s, f, c) = (-42i64, "a\"b\n\u{2028}é", 1.0e-7f64, '\'');
    let big = u128::MAX;
    let owned = String::from("own");
    let mut expect = Vec::new();
    macro_rules! both {
        ($($t:tt)*) => {{
            info!($($t)*);
            expect.push(format!($($t)*));
        }};
    }
    both!("{} {:?} {} {:?}", n, s, f, c);
    both!("{{}} {{{}}} }}{{", n);
    both!("{0} {0} {1} {0}", n, owned);
    both!("{n} {s:?} {owned}");
    both!("{a}-{b:?}-{a}", a = n, b = s);
    both!("{:>8.3}|{:<+9e}|{:^7}|{:08.2}", f, f, c, f);
    both!("{:#x} {:#X} {:o} {:#b} {:E}", n, big, 8u8, 5u16, 1234.5f32);
    both!("{:#?} {:x?} {:5}|{:.2}", s, 255u8, s, s);
    both!("{:?} {:?}", vec![1], Some(owned.as_str()));
    both!("{:>6}|{:<6}|", n, owned);
    both!("é{}→{}ü", 1u8, "€");
    both!("line\nbreak {} {}\u{2028}{:?} {}", s, -7i8, s, true);
    both!("{} {} {} {}", u8::MAX, i16::MIN, usize::MAX, isize::MIN);
    let h = Numeric(0xbeef);
    both!("{:x} {:X} {:o} {:#b} {:e} {:E}", h, h, h, h, h, h);
    // Captures after a positional argument, each used twice.
    both!("{} {s:?} {n} {n} {s:?}", c);
    // Reborrows, trait objects and a site inside a generic function.
    let text: &str = "deref";
    let shown: &dyn std::fmt::Display = &n;
    both!("{} {} {:?}", &*text, shown, &&&c);
    fn generic<T: std::fmt::Display + std::fmt::Debug>(t: T, expect: &mut Vec<String>) {
        info!("{} {:?}", t, t);
        expect.push(format!("{} {:?}", t, t));
        info!("<{}>", t);
        expect.push(format!("<{}>", t));
    }
    generic(5u32, &mut expect);
    generic("gen", &mut expect);
    let got: Vec<String> = seen
        .0
        .lock()
        .unwrap()
        .iter()
        .map(|(m, _)| m.clone())
        .collect();
    assert_eq!(got, expect);
}

/// Writes each record's line twice: as sinks do (the line writer takes a
/// data format's pieces and integers directly) and from the record's
/// `fmt::Arguments` alone.
#[derive(Default)]
struct TwoLines(Mutex<Vec<(String, String)>>);

impl Sink for TwoLines {
    fn emit(&self, r: &elide::Record<'_>) {
        for format in [elide::format::Format::Radical, elide::format::Format::Json] {
            let mut fast = String::new();
            format.write(r, &mut fast);
            let mut slow = String::new();
            r.args().with_args(|args| {
                let plain = elide::Record::new(r.metadata(), r.level(), args, r.fields())
                    .with_time(r.time())
                    .with_thread(r.thread_id());
                format.write(&plain, &mut slow);
            });
            self.0.lock().unwrap().push((fast, slow));
        }
    }
}

/// The direct path of the line writers writes the same bytes as formatting
/// the message, escapes included (a line break or U+2028 in a literal piece
/// or a string argument cannot forge a line).
#[test]
fn line_writers_take_pieces_directly_with_the_same_bytes() {
    let _s = serial();
    let lines = Arc::new(TwoLines::default());
    elide::set_sinks([lines.clone() as Arc<dyn Sink>]);
    elide::set_level(LevelFilter::Info);
    let s = "x\ny\u{2028}z\"q";
    info!("a\nb {} {:?} {} {} {}", s, s, -3i32, u64::MAX, 'c');
    info!("{} {}", 1.5f64, false);
    info!(k = 1, "tab\t{}", s);
    let lines = lines.0.lock().unwrap();
    assert_eq!(lines.len(), 6);
    for (fast, slow) in lines.iter() {
        assert_eq!(fast, slow);
        assert!(
            !fast.trim_end_matches('\n').contains(['\n', '\u{2028}']),
            "{fast}"
        );
    }
}

#[test]
fn a_record_names_its_site() {
    let _s = serial();
    let capture = Capture::start();
    let line = line!() + 1;
    warn!(target: "sites::described", "where am I");
    let records = capture.finish();
    let r = records.assert_logged(Level::Warn, "where am I");
    assert_eq!(
        (r.target, r.module_path, r.file, r.line, r.name),
        ("sites::described", module_path!(), file!(), line, "")
    );
}

#[test]
fn level_for_reads_back_the_rule_covering_a_namespace() {
    let _s = serial();
    elide::set_level_for("sites::level_for", LevelFilter::Debug);
    assert_eq!(
        elide::level_for("sites::level_for::inner"),
        LevelFilter::Debug
    );
    elide::set_level_for("sites::level_for::inner", LevelFilter::Off);
    assert_eq!(
        elide::level_for("sites::level_for::inner::deeper"),
        LevelFilter::Off
    );
    assert_eq!(elide::level_for("sites::level_for"), LevelFilter::Debug);
    // Leave no rule above the global level: a site with a run-time target
    // evaluates its target whenever some namespace may want its level, and
    // `an_off_run_time_target_evaluates_nothing_until_a_namespace_wants_it`
    // (serial like this one, in any order) counts on none wanting `Debug`.
    elide::set_level_for("sites::level_for", LevelFilter::Off);
}

#[test]
fn sinks_lists_the_installed_sinks() {
    let _s = serial();
    let a: Arc<dyn Sink> = Arc::new(MemorySink::new());
    let b: Arc<dyn Sink> = Arc::new(NullSink::new());
    elide::set_sinks([a.clone(), b.clone()]);
    let installed = elide::sinks();
    assert_eq!(installed.len(), 2);
    assert!(Arc::ptr_eq(&installed[0], &a) && Arc::ptr_eq(&installed[1], &b));
    elide::set_sinks([Arc::new(NullSink::new()) as Arc<dyn Sink>]);
}

/// Runs `f` with a file sink (64 KiB buffer, flushed by itself only after
/// warnings) installed at info, then puts a null sink back and removes the
/// file; `f` gets the file's path.
fn with_buffered_file(name: &str, f: impl FnOnce(&std::path::Path)) {
    elide::set_level(LevelFilter::Info);
    let path = elide_tests::Scratch::path(&format!("sites-{name}"));
    let file = Arc::new(elide::sink::FileSink::open(&path).unwrap());
    elide::set_sinks([file as Arc<dyn Sink>]);
    f(&path);
    elide::set_sinks([Arc::new(NullSink::new()) as Arc<dyn Sink>]);
}

#[test]
fn flush_writes_out_a_buffered_file() {
    let _s = serial();
    with_buffered_file("flush", |path| {
        info!(target: "sites::flush", "buffered until flushed");
        let before = std::fs::read_to_string(path).unwrap();
        assert!(!before.contains("buffered until flushed"), "{before}");
        elide::flush();
        let after = std::fs::read_to_string(path).unwrap();
        assert!(after.contains("buffered until flushed"), "{after}");
    });
}

#[test]
fn dropping_the_init_guard_writes_out_a_buffered_file() {
    let _s = serial();
    with_buffered_file("guard", |path| {
        {
            let _guard = elide::init();
            info!(target: "sites::guard", "written when the guard drops");
        }
        let text = std::fs::read_to_string(path).unwrap();
        assert!(text.contains("written when the guard drops"), "{text}");
    });
}
