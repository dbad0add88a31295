//! The radical.utils `.prof` sink: a produced file is parsed back and every
//! field checked. Tests here replace the global sinks, so they run one at a
//! time.

use elide_tests::serial;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use elide::sink::{MemorySink, OwnedValue};
use elide::telemetry::ProfSink;
use elide::{counter, telemetry, Sink};

/// A path for one test's `.prof` directory, removed when the test ends.
fn fresh_dir(test: &str) -> elide_tests::Scratch {
    elide_tests::Scratch::path(&format!("prof-{test}"))
}

/// Time in units of 100 ns, the resolution of `%.7f` seconds.
fn ticks(t: SystemTime) -> u128 {
    t.duration_since(UNIX_EPOCH).unwrap().as_nanos() / 100
}

/// Parses a `.prof` time field, insisting on `<secs>.<7 digits>`.
fn parse_time(field: &str) -> u128 {
    let (secs, frac) = field
        .split_once('.')
        .unwrap_or_else(|| panic!("time {field:?} has no decimal point"));
    assert_eq!(frac.len(), 7, "time {field:?} must have 7 decimals");
    assert!(secs.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit()));
    secs.parse::<u128>().unwrap() * 10_000_000 + frac.parse::<u128>().unwrap()
}

/// The lines of a `.prof` file, each split into exactly seven fields.
fn read_prof(path: &std::path::Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.ends_with('\n'), "file must end with a newline");
    text.lines()
        .map(|line| {
            let fields: Vec<String> = line.split(',').map(str::to_owned).collect();
            assert_eq!(fields.len(), 7, "line {line:?} must have 7 fields");
            fields
        })
        .collect()
}

fn current_thread_label() -> String {
    std::thread::current()
        .name()
        .map(str::to_owned)
        .unwrap_or_else(|| elide::thread_number().to_string())
}

fn check_header_and_sync(lines: &[Vec<String>], name: &str, before: u128, after: u128) {
    assert_eq!(lines[0].join(","), "#time,event,comp,thread,uid,state,msg");
    let sync = &lines[1];
    let t = parse_time(&sync[0]);
    assert!(
        before <= t && t <= after,
        "sync time {t} outside [{before}, {after}]"
    );
    assert_eq!(sync[1], "sync_abs");
    assert_eq!(sync[2], name);
    assert_eq!(sync[3], current_thread_label());
    assert_eq!((sync[4].as_str(), sync[5].as_str()), ("", ""));
    let parts: Vec<&str> = sync[6].split(':').collect();
    assert_eq!(parts.len(), 5, "sync_abs message {:?}", sync[6]);
    assert!(!parts[0].is_empty(), "host name");
    let ip: std::net::Ipv4Addr = parts[1].parse().expect("an IPv4 address");
    assert!(!ip.is_unspecified());
    assert_eq!(parse_time(parts[2]), t);
    // `ntp` when radical.utils' NTP cache is on this machine (checked in
    // tests/radical_analytics.rs); the system time twice otherwise.
    match parts[4] {
        "ntp" => drop(parse_time(parts[3])),
        mode => assert_eq!((mode, parse_time(parts[3])), ("sys", t)),
    }
}

/// A telemetry event, for records built by hand.
static EVENT: elide::Metadata = elide::Metadata::new(
    elide::Kind::Telemetry,
    elide::Level::Info,
    "radical",
    "telemetry_prof",
    file!(),
    1,
    "early.event",
);

/// The `sync_abs` line is never later than the file's first event, even
/// when that event's time was taken before the file was opened (the
/// start-up sink opens on its first event): radical.analytics measures the
/// session from the earliest `sync_abs`.
#[test]
fn sync_abs_is_no_later_than_the_first_event() {
    let dir = fresh_dir("sync-first");
    let early = SystemTime::now() - Duration::from_millis(1500);
    let sink = ProfSink::open(&dir, "agent_0").unwrap();
    let record = elide::Record::new(&EVENT, elide::Level::Info, format_args!(""), &[]);
    sink.emit(&record.with_time(early));
    let later = elide::Record::new(&EVENT, elide::Level::Info, format_args!(""), &[]);
    sink.emit(&later.with_time(early + Duration::from_secs(3)));
    sink.close().unwrap();
    let lines = read_prof(sink.path());
    assert_eq!(lines[1][1], "sync_abs");
    assert_eq!(lines[2][1], "early.event");
    let (sync, first) = (parse_time(&lines[1][0]), parse_time(&lines[2][0]));
    assert_eq!(sync, first, "sync_abs takes the earlier first event's time");
    assert_eq!(sync, ticks(early));
    let parts: Vec<&str> = lines[1][6].split(':').collect();
    assert_eq!(parse_time(parts[2]), sync, "t_sys is the sync time");
    // The header comes once, before the first event only.
    assert_eq!(lines.iter().filter(|l| l[1] == "sync_abs").count(), 1);
}

/// `with_host` puts the given host (cleaned of the separators) in the
/// `sync_abs` line, for hosts where DNS names the machine.
#[test]
fn with_host_names_the_sync_abs_host() {
    let dir = fresh_dir("with-host");
    let sink = ProfSink::open(&dir, "agent_1")
        .unwrap()
        .with_host("node01.cluster.org:x,\n");
    sink.close().unwrap();
    let lines = read_prof(sink.path());
    assert_eq!(lines[1][6].split(':').next(), Some("node01.cluster.orgx"));
}

#[test]
fn events_round_trip_with_every_field() {
    let _s = serial();
    let dir = fresh_dir("round-trip");
    let before = ticks(SystemTime::now());
    let sink = Arc::new(ProfSink::open(&dir, "agent.0").unwrap());
    elide::set_sinks([sink.clone() as Arc<dyn Sink>]);
    elide::set_telemetry(true);

    telemetry!(target: "radical.asyncflow.engine", "task.start", uid = "task.000001", state = "RUNNING");
    telemetry!(
        target: "radical.asyncflow.engine",
        "task.note",
        uid = "task,2",
        state = "A\nB",
        msg = "one, two\nthree",
        n = 42,
        ok = true,
        label = "has space",
    );
    telemetry!(target: "radical.asyncflow.engine", "moved", comp = "agent,x", uid = 7u64);
    let worker = std::thread::spawn(|| {
        telemetry!(target: "radical.asyncflow.engine", "from.thread");
        elide::thread_number().to_string()
    });
    let worker_label = worker.join().unwrap();
    sink.close().unwrap();
    let after = ticks(SystemTime::now());
    assert!(sink.is_closed());
    // Events after close are discarded, not written after END.
    telemetry!(target: "radical.asyncflow.engine", "too.late");
    drop(sink);

    let lines = read_prof(&dir.join("agent.0.prof"));
    assert_eq!(lines.len(), 7, "header, sync_abs, 4 events, END: {lines:?}");
    check_header_and_sync(&lines, "agent.0", before, after);

    let me = current_thread_label();
    let expect = [
        ["task.start", "agent.0", &me, "task.000001", "RUNNING", ""],
        [
            "task.note",
            "agent.0",
            &me,
            "task;2",
            "A\\nB",
            "one; two\\nthree n=42 ok=true label=\"has space\"",
        ],
        ["moved", "agent;x", &me, "7", "", ""],
        ["from.thread", "agent.0", &worker_label, "", "", ""],
        ["END", "agent.0", &me, "", "", ""],
    ];
    let mut last = parse_time(&lines[1][0]);
    for (line, want) in lines[2..].iter().zip(expect) {
        let t = parse_time(&line[0]);
        assert!(
            last <= t && t <= after,
            "times must be ordered and in range: {line:?}"
        );
        last = t;
        assert_eq!(&line[1..], &want[..], "line {line:?}");
    }
}

#[test]
fn component_override_and_append_mode() {
    let _s = serial();
    let dir = fresh_dir("append");
    let first = Arc::new(ProfSink::open(&dir, "client").unwrap());
    elide::set_sinks([first.clone() as Arc<dyn Sink>]);
    elide::set_telemetry(true);
    telemetry!("first.run", uid = "u.1");
    first.close().unwrap();

    let before = ticks(SystemTime::now());
    let second = Arc::new(
        ProfSink::open(&dir, "client")
            .unwrap()
            .with_component("client.0"),
    );
    elide::set_sinks([second.clone() as Arc<dyn Sink>]);
    telemetry!("second.run", uid = "u.2");
    elide::flush(); // flush + fsync: readable before close
    let flushed = read_prof(second.path());
    assert_eq!(flushed.len(), 7, "{flushed:?}");
    drop(second); // the installed set still holds it: not closed yet
    elide::set_sinks([]); // last handle gone: END, flush, fsync
    let after = ticks(SystemTime::now());

    let lines = read_prof(&dir.join("client.prof"));
    assert_eq!(lines.len(), 8, "{lines:?}");
    // The first run is intact.
    // One component on every row: the profile's name.
    assert_eq!(lines[2][1..3], ["first.run", "client"]);
    assert_eq!(lines[3][1..3], ["END", "client"]);
    // The second open wrote its own header and sync line, then events, all
    // with the configured component.
    check_header_and_sync(&lines[4..], "client.0", before, after);
    assert_eq!(
        lines[6][1..5],
        ["second.run", "client.0", &current_thread_label(), "u.2"]
    );
    assert_eq!(lines[7][1..3], ["END", "client.0"]);
}

#[test]
fn enable_installs_and_close_ends_every_file() {
    let _s = serial();
    let dir = fresh_dir("enable");
    elide::set_sinks([]);
    elide::set_telemetry(false);
    let prof = telemetry::enable_prof(&dir, "session").unwrap();
    assert!(elide::telemetry_for("any::namespace"));
    assert_eq!(elide::sinks().len(), 1);
    // A telemetry sink never turns log sites on.
    assert_eq!(prof.max_level(), elide::LevelFilter::Off);
    assert!(prof.wants_telemetry());
    telemetry!("enabled", state = "ON");
    telemetry::close();
    assert!(prof.is_closed());

    let lines = read_prof(&dir.join("session.prof"));
    assert_eq!(lines.len(), 4, "{lines:?}");
    assert_eq!(
        lines[2][1..6],
        ["enabled", "session", &current_thread_label(), "", "ON"]
    );
    assert_eq!(lines[3][1], "END");
}

#[test]
fn counter_sampler_publishes_totals() {
    let _s = serial();
    let dir = fresh_dir("sampler");
    let sink = Arc::new(ProfSink::open(&dir, "counters").unwrap());
    elide::set_sinks([sink.clone() as Arc<dyn Sink>]);
    elide::set_telemetry(true);
    for _ in 0..250 {
        counter!("prof.sampled.a");
    }
    counter!("prof.sampled.b", 7);
    let sampler = telemetry::start_counter_sampler(Duration::from_millis(5)).unwrap();
    std::thread::sleep(Duration::from_millis(30));
    counter!("prof.sampled.b", 3);
    drop(sampler); // final round with the latest totals
    sink.close().unwrap();

    let lines = read_prof(sink.path());
    let samples: Vec<&Vec<String>> = lines
        .iter()
        .filter(|l| l[1] == telemetry::CounterSampler::EVENT)
        .collect();
    for l in &samples {
        // One component on every row: the profile's.
        assert_eq!(l[2], "counters");
        assert_eq!(l[3], "elide-counters");
        assert!(l[6].starts_with("value="), "{l:?}");
    }
    let last_value = |name: &str| {
        samples
            .iter()
            .rev()
            .find(|l| l[4] == name)
            .map(|l| l[6].trim_start_matches("value=").parse::<u64>().unwrap())
    };
    // The final round runs after the last increment.
    assert_eq!(last_value("prof.sampled.a"), Some(250));
    assert_eq!(last_value("prof.sampled.b"), Some(10));
    // Every round lists each counter once.
    let rounds = samples.iter().filter(|l| l[4] == "prof.sampled.a").count();
    assert!(rounds >= 1);
    assert_eq!(samples.len() % rounds, 0);
}

#[test]
fn sampler_is_silent_when_telemetry_is_off_for_it() {
    let _s = serial();
    let dir = fresh_dir("sampler-off");
    let sink = Arc::new(ProfSink::open(&dir, "quiet").unwrap());
    elide::set_sinks([sink.clone() as Arc<dyn Sink>]);
    elide::set_telemetry(true);
    elide::set_telemetry_for(telemetry::CounterSampler::TARGET, false);
    counter!("prof.quiet");
    telemetry::start_counter_sampler(Duration::from_millis(1))
        .unwrap()
        .stop();
    elide::set_telemetry_for(telemetry::CounterSampler::TARGET, true);
    sink.close().unwrap();
    let lines = read_prof(sink.path());
    assert_eq!(lines.len(), 3, "header, sync_abs, END: {lines:?}");
}

/// The sampler's rounds for counter `uid` in `sink`, as the totals they
/// published.
fn sampled(sink: &MemorySink, uid: &str) -> Vec<OwnedValue> {
    sink.records()
        .into_iter()
        .filter(|r| {
            r.name == telemetry::CounterSampler::EVENT
                && r.field("uid") == Some(&OwnedValue::Str(uid.into()))
        })
        .map(|r| r.field("value").cloned().expect("a value field"))
        .collect()
}

/// Ticks keep to the schedule: tick `k` comes no earlier than `k`
/// intervals after the start, and a late tick skips the ticks already past
/// instead of firing them back to back. So a sampler that lived for `T`
/// publishes at least a few rounds (it ticks) and at most `T / interval`
/// before its final one: a slow machine only makes fewer.
#[test]
fn sampler_ticks_on_its_schedule() {
    const INTERVAL: Duration = Duration::from_millis(2);
    let _s = serial();
    let sink = Arc::new(MemorySink::new());
    elide::set_sinks([sink.clone() as Arc<dyn Sink>]);
    elide::set_telemetry(true);
    counter!("prof.schedule");
    let born = Instant::now();
    let sampler = telemetry::start_counter_sampler(INTERVAL).unwrap();
    // A guard against a sampler that never ticks again, not a timing
    // assertion: three ticks are due within 6 ms.
    let deadline = born + Duration::from_secs(10);
    while sampled(&sink, "prof.schedule").len() < 3 {
        assert!(Instant::now() < deadline, "no three ticks in 10 s");
        std::thread::sleep(Duration::from_millis(1));
    }
    drop(sampler);
    let lived = born.elapsed();
    let rounds = sampled(&sink, "prof.schedule").len() as u128;
    let most = lived.as_nanos() / INTERVAL.as_nanos() + 1;
    assert!(
        rounds <= most,
        "{rounds} rounds in {lived:?}: at most {most} (one per {INTERVAL:?}, and the final one)"
    );
}

/// A sampler stopped before its first tick is due publishes one round, the
/// final one, with the totals as they are at the stop.
#[test]
fn stopping_a_sampler_publishes_one_final_round() {
    let _s = serial();
    let sink = Arc::new(MemorySink::new());
    elide::set_sinks([sink.clone() as Arc<dyn Sink>]);
    elide::set_telemetry(true);
    counter!("prof.final", 2);
    let sampler = telemetry::start_counter_sampler(Duration::from_secs(3600)).unwrap();
    counter!("prof.final", 3);
    sampler.stop();
    assert_eq!(sampled(&sink, "prof.final"), [OwnedValue::U64(5)]);
}

#[test]
fn init_guard_drop_ends_enabled_files() {
    let _s = serial();
    let dir = fresh_dir("guard");
    elide::set_sinks([]);
    let guard = elide::init();
    let prof = telemetry::enable_prof(&dir, "guarded").unwrap();
    telemetry!("work", uid = "w.1");
    // A guard taken and dropped in a helper scope is not the last one.
    drop(elide::init());
    assert!(!prof.is_closed(), "an inner guard must not end telemetry");
    drop(guard);
    assert!(prof.is_closed());
    let lines = read_prof(prof.path());
    assert_eq!(lines.len(), 4, "{lines:?}");
    assert_eq!(lines[2][1], "work");
    assert_eq!(lines[3][1], "END");
}

/// `telemetry::enable(dir)` names the profile after the executable, as
/// radical.utils names profiles after the component that writes them.
#[test]
fn enable_names_the_profile_after_the_executable() {
    let _one = serial();
    let dir = fresh_dir("exe-name");
    let sink = elide::telemetry::enable(&dir).expect("enable");
    let exe = std::env::current_exe().expect("exe");
    let stem = exe
        .file_stem()
        .expect("stem")
        .to_string_lossy()
        .into_owned();
    assert_eq!(sink.path(), dir.join(format!("{stem}.prof")));
    sink.close().expect("close");
    elide::set_sinks([]);
}

/// Runs tests/bin/radical_agent.rs (no tasks: its bootstrap scope and two
/// events) with `RADICAL_PROFILE=1`, profiles in `dir` and radical.utils'
/// base in `dir/base`; `vars` are added. Returns its stderr.
fn run_agent(dir: &std::path::Path, vars: &[(&str, &str)]) -> String {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_radical_agent"));
    for var in [
        "RADICAL_PROFILE_NAME",
        "RADICAL_PROFILE_HOST",
        "HOME",
        "PWD",
    ] {
        cmd.env_remove(var);
    }
    cmd.env("RADICAL_PROFILE", "1")
        .env("RADICAL_PROFILE_DIR", dir)
        .env("RADICAL_BASE", dir.join("base"))
        .envs(vars.iter().copied())
        .stdin(std::process::Stdio::null());
    let out = elide_tests::run_with_deadline(&mut cmd, Duration::from_secs(60));
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    stderr
}

/// Writes radical.utils' NTP cache under `dir/base`.
fn write_ntp_cache(dir: &std::path::Path, text: &str) {
    let cache = dir.join("base/.radical/utils");
    std::fs::create_dir_all(&cache).unwrap();
    std::fs::write(cache.join("ntp.cache"), text).unwrap();
}

/// An environment-only process: `PROFILE_NAME` names its file and every
/// row's `comp`, `PROFILE_HOST` its `sync_abs` host, and radical.utils'
/// `ntp.cache` gives the `t_sys:t_ntp:ntp` fields radical.analytics
/// corrects by; the first event (a scope's start, timed before the file
/// opened) is not before `sync_abs`.
#[test]
fn the_environment_names_the_component_and_host_and_the_ntp_cache_is_read() {
    let dir = elide_tests::Scratch::dir("prof-env-agent");
    // The host clock 0.25 s ahead of NTP time.
    write_ntp_cache(&dir, "1796000000.250000\n1796000000.000000\n");
    let stderr = run_agent(
        &dir,
        &[
            ("RADICAL_PROFILE_NAME", "agent_7"),
            ("RADICAL_PROFILE_HOST", "node01.cluster.org"),
        ],
    );
    assert!(stderr.is_empty(), "no warning: {stderr}");
    let lines = read_prof(&dir.join("agent_7.prof"));
    assert!(lines[2..].iter().all(|l| l[2] == "agent_7"), "{lines:?}");
    let sync = &lines[1];
    assert_eq!(sync[1], "sync_abs");
    let parts: Vec<&str> = sync[6].split(':').collect();
    assert_eq!((parts[0], parts[4]), ("node01.cluster.org", "ntp"));
    let (t, t_sys, t_ntp) = (
        parse_time(&sync[0]),
        parse_time(parts[2]),
        parse_time(parts[3]),
    );
    assert_eq!(t_sys, t);
    assert_eq!(t_sys - t_ntp, 2_500_000, "0.25 s in units of 100 ns");
    assert_eq!(lines[2][1], "bootstrap_start", "{lines:?}");
    assert!(parse_time(&lines[2][0]) >= t, "first event before sync_abs");
    assert_eq!(lines.last().unwrap()[1], "END");
}

/// A `PROFILE_NAME` that is no file name and an `ntp.cache` that does not
/// parse each give one warning naming them, and the fallbacks: the root
/// namespace's name, and the system time (`sys`).
#[test]
fn a_bad_profile_name_or_ntp_cache_warns_and_falls_back() {
    let dir = elide_tests::Scratch::dir("prof-env-bad");
    write_ntp_cache(&dir, "1796000000.25 soon\n");
    let stderr = run_agent(&dir, &[("RADICAL_PROFILE_NAME", "../agent_7")]);
    let warnings: Vec<&str> = stderr.lines().collect();
    assert_eq!(warnings.len(), 2, "{stderr}");
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("RADICAL_PROFILE_NAME=\"../agent_7\"")
                && w.contains("using radical")),
        "{stderr}"
    );
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("ntp.cache") && w.contains("\"soon\"")),
        "{stderr}"
    );
    let lines = read_prof(&dir.join("radical.prof"));
    let parts: Vec<&str> = lines[1][6].split(':').collect();
    assert_eq!(parts[4], "sys");
    assert_eq!(parse_time(parts[2]), parse_time(parts[3]));
}
