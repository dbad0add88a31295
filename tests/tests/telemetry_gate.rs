//! When `telemetry!` sites run: telemetry on for the namespace and a sink
//! that wants telemetry. Tests here change global configuration, so they
//! run one at a time.

use elide_tests::serial;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use elide::sink::{MemorySink, NullSink, OwnedValue};
use elide::{telemetry, Kind, Sink};

static EVALUATED: AtomicU32 = AtomicU32::new(0);

/// A field value with a side effect, to see whether fields were built.
fn costly(n: u64) -> u64 {
    EVALUATED.fetch_add(1, Ordering::SeqCst);
    n
}

fn site(n: u64) {
    telemetry!(target: "app::engine", "task.start", uid = "task.1", n = costly(n));
}

#[test]
fn off_means_fields_are_not_evaluated() {
    let _s = serial();
    let mem = Arc::new(MemorySink::new());
    elide::set_sinks([mem.clone() as Arc<dyn Sink>]);
    elide::set_telemetry(false);
    let before = EVALUATED.load(Ordering::SeqCst);
    for i in 0..100 {
        site(i);
    }
    assert_eq!(EVALUATED.load(Ordering::SeqCst), before);
    assert!(mem.is_empty());

    // On for the namespace, but no sink wants telemetry: still not built.
    elide::set_telemetry(true);
    elide::set_sinks([Arc::new(NullSink::new()) as Arc<dyn Sink>]);
    site(1);
    assert_eq!(EVALUATED.load(Ordering::SeqCst), before);
}

#[test]
fn on_delivers_events_with_their_fields() {
    let _s = serial();
    let mem = Arc::new(MemorySink::new().with_level(elide::LevelFilter::Off));
    elide::set_sinks([mem.clone() as Arc<dyn Sink>]);
    elide::set_telemetry(true);
    let before = EVALUATED.load(Ordering::SeqCst);
    site(5);
    site(6);
    assert_eq!(EVALUATED.load(Ordering::SeqCst), before + 2);
    let records = mem.take();
    assert_eq!(records.len(), 2);
    for (r, n) in records.iter().zip([5u64, 6]) {
        assert_eq!(r.kind, Kind::Telemetry);
        assert_eq!(r.name, "task.start");
        assert_eq!(r.target, "app::engine");
        assert_eq!(
            r.fields,
            [
                ("uid", OwnedValue::Str("task.1".into())),
                ("n", OwnedValue::U64(n))
            ]
        );
    }
    elide::set_telemetry(false);
}

#[test]
fn namespace_rules_decide_per_site() {
    let _s = serial();
    let mem = Arc::new(MemorySink::new());
    elide::set_sinks([mem.clone() as Arc<dyn Sink>]);
    elide::set_telemetry(false);
    // Rules stay for the process: this test keeps to its own namespace.
    elide::set_telemetry_for("zone", true);
    elide::set_telemetry_for("zone::quiet", false);
    telemetry!(target: "zone::engine", "loud");
    telemetry!(target: "zone::quiet::inner", "silent");
    telemetry!(target: "other", "elsewhere");
    let names: Vec<_> = mem.take().iter().map(|r| r.name).collect();
    assert_eq!(names, ["loud"]);
}

#[test]
fn event_names_are_literal_text() {
    let _s = serial();
    let mem = Arc::new(MemorySink::new());
    elide::set_sinks([mem.clone() as Arc<dyn Sink>]);
    elide::set_telemetry(true);
    telemetry!("weird {name} {{}}");
    let r = &mem.take()[0];
    assert_eq!(r.name, "weird {name} {{}}");
    assert_eq!(r.message, "weird {name} {{}}");
    elide::set_telemetry(false);
}
