//! Run-time targets past the 4096th: the table of run-time sites is
//! bounded, so a program that makes up targets without end (a request id in
//! the target) keeps a fixed amount of memory. The test fills the
//! process-wide table, so it has this process to itself.

use std::sync::Arc;

use elide::sink::{MemorySink, OwnedValue};
use elide::{Level, LevelFilter, Sink, Value};

/// Distinct run-time targets kept before new ones share the overflow site
/// (the number `emit`'s documentation gives).
const MAX_TARGETS: usize = 4096;
/// The overflow site's target, as `emit`'s documentation names it.
const OVERFLOW_TARGET: &str = "elide::overflow";

#[test]
fn targets_past_the_limit_share_one_site_and_name_their_own_target() {
    let mem = Arc::new(MemorySink::new());
    elide::bridge::log::install().expect("no log logger yet");
    elide::set_sinks([mem.clone() as Arc<dyn Sink>]);
    elide::set_level(LevelFilter::Info);
    elide::set_level_for("early", LevelFilter::Debug);

    let target = |i: usize| format!("early::t{i}");
    for i in 0..MAX_TARGETS {
        elide::emit(&target(i), Level::Info, &[], format_args!("{i}"));
    }
    let recs = mem.take();
    assert_eq!(recs.len(), MAX_TARGETS);
    assert!(recs.iter().enumerate().all(|(i, r)| r.target == target(i)
        && r.field("target").is_none()
        && r.message == i.to_string()));

    // One more distinct target: the shared site, its own name as a field
    // (before the record's own fields).
    let late = "late::one";
    elide::emit(
        late,
        Level::Warn,
        &[("n", Value::U64(1))],
        format_args!("late"),
    );
    let r = mem.take();
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].target, OVERFLOW_TARGET);
    let fields: Vec<_> = r[0].fields.iter().map(|(k, _)| *k).collect();
    assert_eq!(fields, ["target", "n"]);
    assert_eq!(r[0].field("target"), Some(&OwnedValue::Str(late.into())));

    // A `log` record from a module first seen past the limit: the same
    // shared site, also the second time (from the bridge's cache).
    let at = line!() + 2;
    for _ in 0..2 {
        log::warn!("bridged late");
    }
    let r = mem.take();
    assert_eq!(r.len(), 2);
    for r in &r {
        assert_eq!(
            (r.target, r.message.as_str()),
            (OVERFLOW_TARGET, "bridged late")
        );
        let own = OwnedValue::Str(module_path!().into());
        assert_eq!(r.field("target"), Some(&own));
        assert_eq!(r.line, at);
    }

    // The targets made before the limit keep their own sites and their
    // namespace's level (debug under `early`); the overflow site has the
    // default level (info).
    assert!(elide::enabled_for(&target(7), Level::Debug));
    elide::emit(&target(7), Level::Debug, &[], format_args!("still mine"));
    assert!(!elide::enabled_for("late::two", Level::Debug));
    elide::emit("late::two", Level::Debug, &[], format_args!("dropped"));
    let r = mem.take();
    assert_eq!(r.len(), 1);
    assert_eq!(
        (r[0].target, r[0].message.as_str()),
        (target(7).as_str(), "still mine")
    );
}
