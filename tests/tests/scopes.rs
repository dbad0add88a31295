//! Timed scopes (`scope!`, `#[timed]`): the start/stop pair in a `.prof`
//! file, nesting on one thread and across `.await`, durations, and the
//! run-time gate. Tests here replace the global sinks, so they run one at a
//! time.

use elide_tests::{serial, YieldOnce};
use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::time::{Duration, UNIX_EPOCH};

use elide::sink::{MemorySink, OwnedRecord, OwnedValue};
use elide::Sink;

fn memory() -> Arc<MemorySink> {
    let mem = Arc::new(MemorySink::new());
    elide::set_sinks([mem.clone() as Arc<dyn Sink>]);
    elide::set_telemetry(true);
    mem
}

fn u64_field(r: &OwnedRecord, name: &str) -> Option<u64> {
    match r.field(name) {
        Some(OwnedValue::U64(n)) => Some(*n),
        None => None,
        other => panic!("{name} of {} is {other:?}", r.name),
    }
}

/// `key=value` pairs of a `.prof` msg column.
fn msg_field(msg: &str, key: &str) -> Option<u64> {
    msg.split(' ')
        .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
        .map(|v| v.parse().unwrap())
}

fn prof_ticks(field: &str) -> u128 {
    let (s, f) = field.split_once('.').unwrap();
    s.parse::<u128>().unwrap() * 10_000_000 + f.parse::<u128>().unwrap()
}

#[test]
fn nested_scopes_write_start_stop_pairs_to_the_prof_file() {
    let _g = serial();
    let dir = elide_tests::Scratch::path("scopes");
    let prof = Arc::new(elide::telemetry::ProfSink::open(&dir, "scopes").unwrap());
    elide::set_sinks([prof.clone() as Arc<dyn Sink>]);
    elide::set_telemetry(true);

    let uid = String::from("task.000007");
    {
        let _s = elide::scope!("task.exec", uid = %uid, state = "RUNNING");
        std::thread::sleep(Duration::from_millis(30));
        {
            let _inner = elide::scope!("task.stage_in", uid = %uid);
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    prof.close().unwrap();
    elide::set_sinks([]);

    let text = std::fs::read_to_string(prof.path()).unwrap();
    let lines: Vec<Vec<&str>> = text
        .lines()
        .map(|l| l.split(',').collect::<Vec<_>>())
        .filter(|f| f[1].starts_with("task."))
        .collect();
    let events: Vec<&str> = lines.iter().map(|f| f[1]).collect();
    assert_eq!(
        events,
        [
            "task.exec_start",
            "task.stage_in_start",
            "task.stage_in_stop",
            "task.exec_stop"
        ],
        "{text}"
    );
    for f in &lines {
        assert_eq!(f.len(), 7);
        assert_eq!(f[4], "task.000007", "uid column on every event: {f:?}");
    }
    assert_eq!(lines[0][5], "RUNNING");
    assert_eq!(
        lines[3][5], "RUNNING",
        "the stop event carries the fields too"
    );
    let outer = msg_field(lines[0][6], "scope").unwrap();
    let inner = msg_field(lines[1][6], "scope").unwrap();
    assert_ne!(outer, inner);
    assert_eq!(msg_field(lines[0][6], "parent"), None, "outer is a root");
    assert_eq!(msg_field(lines[1][6], "parent"), Some(outer));
    assert_eq!(msg_field(lines[2][6], "parent"), Some(outer));
    assert_eq!(msg_field(lines[2][6], "scope"), Some(inner));
    assert_eq!(msg_field(lines[3][6], "scope"), Some(outer));
    assert_eq!(msg_field(lines[1][6], "trace"), Some(outer));
    let inner_ns = msg_field(lines[2][6], "duration_ns").unwrap();
    let outer_ns = msg_field(lines[3][6], "duration_ns").unwrap();
    assert!(inner_ns >= 20_000_000, "inner slept 20 ms: {inner_ns}");
    assert!(outer_ns >= 50_000_000, "outer slept 50 ms: {outer_ns}");
    assert_eq!(msg_field(lines[0][6], "duration_ns"), None);
    // stop time - start time is the duration (to the 100 ns of `%.7f`).
    for (start, stop, ns) in [(1, 2, inner_ns), (0, 3, outer_ns)] {
        let d = prof_ticks(lines[stop][0]) - prof_ticks(lines[start][0]);
        let want = u128::from(ns) / 100;
        assert!(d.abs_diff(want) <= 1, "{d} ticks vs {ns} ns");
    }
}

#[test]
fn off_at_run_time_no_events_and_arguments_not_evaluated() {
    let _g = serial();
    let mem = memory();
    elide::set_telemetry(false);
    let evaluated = AtomicUsize::new(0);
    let touch = || evaluated.fetch_add(1, Ordering::Relaxed);
    let s = elide::scope!("off.scope", n = touch());
    assert!(s.is_none(), "no guard when off");
    assert!(elide::telemetry::ScopeHandle::current().id().is_none());
    drop(s);
    assert_eq!(timed_sync(3), 4);
    assert_eq!(evaluated.load(Ordering::Relaxed), 0, "arguments evaluated");
    assert!(mem.is_empty(), "{:?}", mem.records());

    // On again: the same site now opens a scope and evaluates once.
    elide::set_telemetry(true);
    let s = elide::scope!("off.scope", n = touch());
    assert!(s.is_some());
    assert_eq!(
        elide::telemetry::ScopeHandle::current().id(),
        s.as_ref().map(|g| g.scope().id())
    );
    drop(s);
    assert_eq!(evaluated.load(Ordering::Relaxed), 1);
    assert_eq!(mem.len(), 2);
    elide::set_sinks([]);
}

#[elide::timed(name = "calc", n)]
fn timed_sync(n: u64) -> u64 {
    let _inner = elide::scope!("calc.inner");
    n + 1
}

#[elide::timed]
fn default_named() -> Option<u32> {
    let x: Option<u32> = Some(1);
    Some(x? + 1)
}

#[test]
fn timed_functions_nest_and_carry_their_fields() {
    let _g = serial();
    let mem = memory();
    {
        let _s = elide::scope!("outer");
        assert_eq!(timed_sync(41), 42);
    }
    assert_eq!(default_named(), Some(2));
    let recs = mem.take();
    let names: Vec<&str> = recs.iter().map(|r| r.name).collect();
    assert_eq!(
        names,
        [
            "outer_start",
            "calc_start",
            "calc.inner_start",
            "calc.inner_stop",
            "calc_stop",
            "outer_stop",
            "default_named_start",
            "default_named_stop"
        ]
    );
    let outer = u64_field(&recs[0], "scope").unwrap();
    let calc = u64_field(&recs[1], "scope").unwrap();
    assert_eq!(u64_field(&recs[1], "parent"), Some(outer));
    assert_eq!(u64_field(&recs[2], "parent"), Some(calc));
    assert_eq!(u64_field(&recs[2], "trace"), Some(outer));
    assert_eq!(recs[1].field("n"), Some(&OwnedValue::U64(41)));
    assert_eq!(recs[4].field("n"), Some(&OwnedValue::U64(41)));
    assert_eq!(u64_field(&recs[6], "parent"), None);
    assert!(
        elide::telemetry::ScopeHandle::current().id().is_none(),
        "stack is empty"
    );
    elide::set_sinks([]);
}

struct Noop;
impl Wake for Noop {
    fn wake(self: Arc<Self>) {}
}

#[elide::timed(name = "job", id)]
async fn job(id: u32) -> Result<u32, String> {
    YieldOnce::new().await;
    {
        // A `scope!` guard is not `Send`: it cannot be held across `.await`
        // in a future that moves between threads (`#[timed]` is for that).
        let _s = elide::scope!("job.step");
    }
    let r = step(id).await?;
    Ok(r)
}

// `?` converts the error into the declared one: the expansion must name
// the return type for that, except an `impl Trait` one, which it cannot.
#[elide::timed]
async fn parsed(s: &str) -> Result<u32, Box<dyn std::error::Error>> {
    Ok(s.parse::<u32>()?)
}

#[elide::timed]
async fn evens(n: u32) -> impl Iterator<Item = u32> {
    (0..n).filter(|i| i % 2 == 0)
}

#[elide::timed(name = "job.io")]
async fn step(id: u32) -> Result<u32, String> {
    YieldOnce::new().await;
    if id == 0 {
        return Err("zero".into());
    }
    Ok(id * 2)
}

/// A scope's `?x` and `%x` fields keep their formatting: `Debug` and
/// `Display` as written (a string's `Debug` is quoted).
#[test]
fn scope_fields_keep_debug_and_display() {
    let _g = serial();
    let mem = memory();
    let who = "a b";
    {
        let _s = elide::scope!("fmt", ?who, %who);
    }
    let recs = mem.take();
    let start = recs.iter().find(|r| r.name == "fmt_start").expect("start");
    let shown: Vec<(&str, String)> = start
        .fields
        .iter()
        .filter(|(k, _)| *k == "who")
        .map(|(k, v)| (*k, v.to_string()))
        .collect();
    assert_eq!(shown, [("who", "\"a b\"".into()), ("who", "a b".into())]);
}

/// Polls `fut` on this thread until it is ready.
fn ready<F: Future>(fut: F) -> F::Output {
    let waker = Waker::from(Arc::new(Noop));
    let mut cx = Context::from_waker(&waker);
    let mut fut = Box::pin(fut);
    loop {
        if let Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

/// `#[timed]` keeps an async function's return type: `?` still converts
/// into the declared error, and an `impl Trait` return still compiles.
#[test]
fn timed_async_functions_keep_their_return_types() {
    let _g = serial();
    let mem = memory();
    assert_eq!(ready(parsed("7")).unwrap(), 7);
    assert!(ready(parsed("x")).is_err());
    assert_eq!(ready(evens(5)).collect::<Vec<_>>(), [0, 2, 4]);
    let names: Vec<&str> = mem.take().iter().map(|r| r.name).collect();
    assert_eq!(names.first(), Some(&"parsed_start"));
    assert_eq!(names.last(), Some(&"evens_stop"));
}

#[test]
fn async_timed_scope_is_the_parent_across_await_and_threads() {
    let _g = serial();
    let mem = memory();
    let waker = Waker::from(Arc::new(Noop));
    let mut fut = Box::pin(job(21));
    // First poll on this thread suspends at the first `.await`.
    assert!(fut
        .as_mut()
        .poll(&mut Context::from_waker(&waker))
        .is_pending());
    assert!(
        elide::telemetry::ScopeHandle::current().id().is_none(),
        "not current between polls"
    );
    // The rest runs on another thread.
    let out = std::thread::spawn(move || {
        let mut cx = Context::from_waker(&waker);
        loop {
            if let Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
                return v;
            }
        }
    })
    .join()
    .unwrap();
    assert_eq!(out, Ok(42));
    let recs = mem.take();
    let names: Vec<&str> = recs.iter().map(|r| r.name).collect();
    assert_eq!(
        names,
        [
            "job_start",
            "job.step_start",
            "job.step_stop",
            "job.io_start",
            "job.io_stop",
            "job_stop"
        ]
    );
    let job = u64_field(&recs[0], "scope").unwrap();
    assert_eq!(
        u64_field(&recs[1], "parent"),
        Some(job),
        "after .await, on another thread"
    );
    assert_eq!(u64_field(&recs[3], "parent"), Some(job));
    assert_eq!(u64_field(&recs[3], "trace"), Some(job));
    assert_eq!(recs[0].field("id"), Some(&OwnedValue::U64(21)));
    assert_ne!(
        recs[0].thread, recs[1].thread,
        "resumed on the other thread"
    );
    let d = u64_field(&recs[5], "duration_ns").unwrap();
    let span = recs[5].time.duration_since(recs[0].time).unwrap();
    assert_eq!(span.as_nanos(), u128::from(d));
    assert!(recs[0].time > UNIX_EPOCH);
    elide::set_sinks([]);
}

/// The stop event carries the site's fields as the start event had them,
/// each of the same kind: `%x` stays Display, `?x` stays Debug (printed as
/// it was rendered, not quoted again), strings stay strings.
#[test]
fn the_stop_event_keeps_each_field_and_its_kind() {
    let _g = serial();
    let mem = memory();
    {
        let tag = Some("t 1");
        let _s = elide::scope!("kinds", shown = %"a b", dbg = ?tag, s = "x", n = -4i32);
    }
    let recs = mem.take();
    let names: Vec<&str> = recs.iter().map(|r| r.name).collect();
    assert_eq!(names, ["kinds_start", "kinds_stop"]);
    for r in &recs {
        assert_eq!(r.field("shown"), Some(&OwnedValue::Display("a b".into())));
        assert_eq!(
            r.field("dbg"),
            Some(&OwnedValue::Debug(r#"Some("t 1")"#.into()))
        );
        assert_eq!(r.field("s"), Some(&OwnedValue::Str("x".into())));
        assert_eq!(r.field("n"), Some(&OwnedValue::I64(-4)));
    }
    elide::set_sinks([]);
}

/// A guard dropped out of order (here the outer one first) leaves the scope
/// current that was: the stack loses the dropped scope wherever it is, and
/// a scope opened next takes the right parent.
#[test]
fn a_guard_dropped_out_of_order_leaves_the_others_current() {
    let _g = serial();
    let mem = memory();
    let current = || elide::telemetry::ScopeHandle::current().id();
    let a = elide::scope!("order.a").unwrap();
    let b = elide::scope!("order.b").unwrap();
    let c = elide::scope!("order.c").unwrap();
    let (a_id, b_id, c_id) = (a.scope().id(), b.scope().id(), c.scope().id());
    drop(b);
    assert_eq!(current(), Some(c_id), "the innermost stays current");
    drop(a);
    assert_eq!(current(), Some(c_id));
    {
        let d = elide::scope!("order.d").unwrap();
        assert_eq!(d.scope().parent(), Some(c_id));
    }
    drop(c);
    assert_eq!(current(), None, "every scope left the stack");
    let started: Vec<u64> = mem
        .take()
        .iter()
        .filter(|r| r.name.ends_with("_start"))
        .filter_map(|r| u64_field(r, "scope"))
        .collect();
    assert_eq!(started[..3], [a_id, b_id, c_id]);
    elide::set_sinks([]);
}

/// A guard's scope reports the id, parent and trace its events carry, and
/// prints them with `{:?}`.
#[test]
fn a_scope_reports_its_id_parent_and_trace() {
    let _g = serial();
    let mem = memory();
    // Ids count from 1 in each process (nextest runs each test in its own):
    // one scope first, so no id below is 1, which a constant could match.
    drop(elide::scope!("ids.first"));
    mem.clear();
    let outer = elide::scope!("ids.outer").unwrap();
    let inner = elide::scope!("ids.inner").unwrap();
    let (o, i) = (outer.scope(), inner.scope());
    assert_ne!(o.id(), i.id());
    assert_eq!(o.parent(), None, "a root has no parent");
    assert_eq!(o.trace(), o.id(), "a root is its own trace");
    assert_eq!(i.parent(), Some(o.id()));
    assert_eq!(i.trace(), o.id());
    let printed = format!("{inner:?}");
    assert!(printed.starts_with("Scope {"), "{printed}");
    assert!(printed.contains(&format!("id: {}", i.id())), "{printed}");
    assert!(
        printed.contains(&format!("parent: {}", o.id())),
        "{printed}"
    );
    let starts = mem.records();
    assert_eq!(u64_field(&starts[0], "scope"), Some(o.id()));
    assert_eq!(u64_field(&starts[1], "scope"), Some(i.id()));
    drop(inner);
    drop(outer);
    elide::set_sinks([]);
}
