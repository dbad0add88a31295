//! Scoped capture (`elide::testing`) under cargo's parallel test runner:
//! every test here captures at once, none installs a sink or a level for
//! its own records, and each sees exactly what its own thread logged.
//! `.ci/run` runs this file 20 times in a row.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use elide::sink::MemorySink;
use elide::testing::{self, Capture};
use elide::{debug, enabled, info, telemetry, trace, warn, Level, LevelFilter, Sink};

const N: usize = 300;

/// Logs `N` records tagged `tag` at debug and trace, yielding between them
/// so the parallel tests interleave.
fn chatter(tag: &str) {
    for i in 0..N {
        debug!(tag, i, "{tag} {i}");
        if i % 3 == 0 {
            trace!(tag, "{tag} trace");
        }
        std::thread::yield_now();
    }
}

fn assert_only(records: &testing::Records, tag: &str) {
    assert_eq!(records.len(), N + N / 3, "{tag}: {} records", records.len());
    for r in records.iter() {
        r.assert_field("tag", tag);
    }
    records.assert_logged(Level::Debug, &format!("{tag} {}", N - 1));
    records.assert_logged(Level::Trace, &format!("{tag} trace"));
}

// Three tests doing the same thing in parallel: the flaky case of the
// issue (each installed a global `MemorySink` and saw the others' records).
#[test]
fn a_captures_only_its_own_thread() {
    assert_only(&testing::capture(|| chatter("a")), "a");
}

#[test]
fn b_captures_only_its_own_thread() {
    assert_only(&testing::capture(|| chatter("b")), "b");
}

#[test]
fn c_captures_only_its_own_thread() {
    // While uncaptured threads log at the same time.
    let noise: Vec<_> = (0..2)
        .map(|_| std::thread::spawn(|| (0..N).for_each(|i| debug!(tag = "noise", i, "noise"))))
        .collect();
    let records = testing::capture(|| chatter("c"));
    noise.into_iter().for_each(|t| t.join().unwrap());
    assert_only(&records, "c");
}

#[test]
fn threads_spawned_through_the_capture_are_captured() {
    let capture = Capture::start();
    let handle = capture.handle();
    testing::spawn(|| debug!(tag = "spawned", "from testing::spawn"))
        .join()
        .unwrap();
    std::thread::scope(|s| {
        s.spawn(|| handle.in_scope(|| debug!(tag = "scoped", "from a handle")));
        // A thread that did not enter the capture is not seen.
        s.spawn(|| debug!(tag = "outside", "not entered"));
    });
    // `spawn` inherits nested captures too.
    let inner = Capture::start();
    testing::spawn(|| info!("both levels see me"))
        .join()
        .unwrap();
    inner.finish().assert_logged(Level::Info, "both levels");
    let records = capture.finish();
    records.assert_logged(Level::Debug, "from testing::spawn");
    records.assert_logged(Level::Debug, "from a handle");
    records.assert_logged(Level::Info, "both levels");
    records.assert_not_logged(Level::Debug, "not entered");
    assert_eq!(records.len(), 3, "{records}");
}

/// The installed sinks get exactly what the configuration says, whatever a
/// capture raised; `enabled!` answers for the asking thread.
#[test]
fn installed_sinks_and_other_threads_are_unaffected() {
    let global = Arc::new(MemorySink::new());
    elide::set_sinks([global.clone() as Arc<dyn Sink>]);
    elide::set_level_for(module_path!(), LevelFilter::Warn);
    let capture = Capture::start();
    assert!(enabled!(Level::Debug), "a captured thread wants debug");
    let elsewhere = std::thread::spawn(|| enabled!(Level::Debug))
        .join()
        .unwrap();
    assert!(!elsewhere, "an uncaptured thread does not");
    debug!(tag = "installed", "captured only");
    warn!(tag = "installed", "captured and installed");
    // The run-time emit API (what the log and tracing bridges use) follows
    // the same routes: the capture raised every site, but a thread outside
    // it gets only what the configuration allows, and this thread's
    // captured-only records stay out of the installed sinks.
    let tag = [("tag", elide::Value::Str("installed"))];
    let target = module_path!().to_string();
    let t = target.clone();
    std::thread::spawn(move || {
        let tag = [("tag", elide::Value::Str("installed"))];
        elide::emit(
            &t,
            Level::Debug,
            &tag,
            format_args!("run-time elsewhere, off"),
        );
        elide::emit(
            &t,
            Level::Warn,
            &tag,
            format_args!("run-time elsewhere, on"),
        );
    })
    .join()
    .unwrap();
    elide::emit(
        &target,
        Level::Debug,
        &tag,
        format_args!("run-time, captured only"),
    );
    let records = capture.finish();
    records.assert_logged(Level::Debug, "captured only");
    records.assert_logged(Level::Warn, "captured and installed");
    records.assert_logged(Level::Debug, "run-time, captured only");
    records.assert_not_logged(Level::Debug, "run-time elsewhere");
    records.assert_not_logged(Level::Warn, "run-time elsewhere");
    let mine: Vec<String> = global
        .records()
        .into_iter()
        .filter(|r| r.field("tag").is_some_and(|v| v.to_string() == "installed"))
        .map(|r| r.message)
        .collect();
    assert_eq!(mine, ["captured and installed", "run-time elsewhere, on"]);
}

#[inline(never)]
fn plain_site(hits: &AtomicUsize) {
    debug!(target: "capture::plain", "hit {}", hits.fetch_add(1, Ordering::SeqCst));
}

/// A common site raised by a capture is still off on a thread outside it:
/// its hot check passes there, but its arguments are not evaluated and no
/// record is built; the capturing thread gets it.
#[test]
fn a_raised_site_hit_elsewhere_evaluates_nothing() {
    let global = Arc::new(MemorySink::new());
    elide::set_sinks([global.clone() as Arc<dyn Sink>]);
    elide::set_level_for("capture::plain", LevelFilter::Error);
    let hits = Arc::new(AtomicUsize::new(0));
    let capture = Capture::start();
    for _ in 0..3 {
        let hits = hits.clone();
        std::thread::spawn(move || plain_site(&hits))
            .join()
            .unwrap();
    }
    assert_eq!(hits.load(Ordering::SeqCst), 0, "arguments never evaluated");
    plain_site(&hits);
    assert_eq!(capture.finish().messages(), ["hit 0"]);
    assert!(
        global
            .records()
            .iter()
            .all(|r| r.target != "capture::plain"),
        "the installed sinks get nothing"
    );
}

#[inline(never)]
fn once_site(hits: &AtomicUsize) {
    info!(target: "capture::once", once, "first hit {}", hits.fetch_add(1, Ordering::SeqCst));
}

/// A sampled site hit on an uncaptured thread while a capture raised it is
/// off there, and keeps its slot for a thread that captures.
#[test]
fn a_raised_site_hit_elsewhere_keeps_its_sample() {
    elide::set_level_for("capture::once", LevelFilter::Error);
    let hits = Arc::new(AtomicUsize::new(0));
    let capture = Capture::start();
    for _ in 0..3 {
        let hits = hits.clone();
        std::thread::spawn(move || once_site(&hits)).join().unwrap();
    }
    assert_eq!(hits.load(Ordering::SeqCst), 0, "arguments never evaluated");
    once_site(&hits);
    once_site(&hits);
    assert_eq!(capture.finish().messages(), ["first hit 0"]);
}

#[test]
fn telemetry_events_of_sites_that_are_on_are_captured() {
    elide::set_telemetry_for("capture::events", true);
    let records = testing::capture(|| {
        telemetry!(target: "capture::events", "task.start", uid = "task.7");
        telemetry!(target: "capture::quiet", "task.hidden", uid = "task.8");
    });
    records
        .assert_event("task.start")
        .assert_field("uid", "task.7");
    assert_eq!(records.len(), 1, "telemetry off for capture::quiet");
}

#[test]
fn a_capture_filters_by_its_level() {
    let capture = Capture::with_level(LevelFilter::Info);
    info!("kept");
    debug!("dropped");
    assert_eq!(capture.take().messages(), ["kept"]);
    warn!("after take");
    assert_eq!(capture.finish().messages(), ["after take"]);
}

#[test]
fn records_so_far_can_be_read_without_ending_the_capture() {
    let capture = Capture::start();
    info!("first");
    assert_eq!(capture.records().messages(), ["first"]);
    info!("second");
    assert_eq!(capture.finish().messages(), ["first", "second"]);
}

#[test]
fn captured_records_answer_assertions_and_iterate() {
    use std::panic::{catch_unwind, AssertUnwindSafe};
    let records = testing::capture(|| info!("alpha"));
    records.assert_not_logged(Level::Info, "beta");
    let logged = catch_unwind(AssertUnwindSafe(|| {
        records.assert_not_logged(Level::Info, "alpha")
    }));
    assert!(
        logged.is_err(),
        "a record that is there fails assert_not_logged"
    );
    // A log record is no telemetry event, whatever name is asked for.
    let event = catch_unwind(AssertUnwindSafe(|| {
        records.assert_event("");
    }));
    assert!(event.is_err());
    assert_eq!((&records).into_iter().count(), 1);
    let messages: Vec<String> = (&records).into_iter().map(|r| r.message.clone()).collect();
    assert_eq!(messages, ["alpha"]);
    assert!(records.to_string().contains("alpha"), "{records}");
    let owned: Vec<_> = testing::capture(|| info!("beta")).into_iter().collect();
    assert_eq!(owned.len(), 1);
    assert_eq!(
        testing::capture(|| info!("gamma")).records.into_vec()[0].message,
        "gamma"
    );
}

#[test]
fn a_panic_inside_capture_ends_it() {
    let capture = Capture::start();
    let handle = capture.handle();
    let result = std::panic::catch_unwind(move || {
        let _capture = capture;
        debug!("before the panic");
        panic!("test body failed");
    });
    assert!(result.is_err());
    debug!("after the capture ended");
    assert_eq!(handle.records().messages(), ["before the panic"]);
}

#[test]
fn failed_assertions_list_what_was_captured() {
    let records = testing::capture(|| warn!(disk = "sda", "disk slow"));
    let err = std::panic::catch_unwind(|| {
        records.assert_logged(Level::Error, "disk");
    })
    .unwrap_err();
    let msg = err.downcast_ref::<String>().unwrap();
    assert!(
        msg.contains("expected a ERROR record containing \"disk\""),
        "{msg}"
    );
    assert!(
        msg.contains("WARN") && msg.contains("disk slow {disk=sda}"),
        "{msg}"
    );
    let err = std::panic::catch_unwind(|| {
        records[0].assert_field("disk", "sdb");
    })
    .unwrap_err();
    assert!(err.downcast_ref::<String>().unwrap().contains("sda"));
}

/// The code under test returns something: the capture hands it back with
/// the records (a closure returning a value did not compile before).
#[test]
fn a_capture_returns_what_the_closure_returned() {
    fn reserve(free: u64) -> Result<u64, String> {
        if free < 10 {
            warn!(free, "disk almost full");
            return Err(format!("only {free} free"));
        }
        debug!(free, "reserved");
        Ok(free - 10)
    }
    let low = testing::capture(|| reserve(3));
    assert_eq!(low.value, Err("only 3 free".to_owned()));
    low.assert_logged(Level::Warn, "disk")
        .assert_field("free", 3);
    assert_eq!(low.len(), 1, "{low}");
    let (left, records) = testing::capture(|| reserve(25)).into_parts();
    assert_eq!(left, Ok(15));
    assert_eq!(records.messages(), ["reserved"]);
    // Iterating, by reference or by value, walks the records.
    let captured = testing::capture(|| reserve(12));
    assert_eq!((&captured).into_iter().count(), 1);
    let owned: Vec<_> = captured.into_iter().map(|r| r.message).collect();
    assert_eq!(owned, ["reserved"]);
}
