//! A real binary for the environment tests: runs the commands given as
//! arguments, in order, and prints what is enabled, one `probe key=value`
//! line each, on stdout.
//!
//! Commands: `init`, `ns:<root>` (init_ns), `report`, `emit`,
//! `burst:<n>` (n info lines `burst seq=<i>` under `radical_asyncflow::engine`),
//! `set:<VAR>=<value>` (changes this process's environment),
//! `reload`, `api-level:<level>` (set_level), `api-default:<level>`
//! (set_default_level), `api-debug-for:<namespace>` (set_debug_for, on), `describe:<namespace>`
//! (`describe` alone: the application), `entries:<namespace>` (the same
//! through `Description`'s accessors, one `entry` line per key),
//! `telemetry` (one event under `radical_asyncflow::engine`), `api-no-sinks`
//! (`set_sinks([])`), `count-sinks`.

use std::sync::atomic::{AtomicUsize, Ordering};

use elide::{check, enabled, Level, LevelFilter};

/// Sites of a library under RADICAL_ASYNCFLOW.
mod engine {
    use super::*;

    pub(crate) fn levels() -> [bool; 5] {
        [
            enabled!(target: "radical_asyncflow::engine", Level::Error),
            enabled!(target: "radical_asyncflow::engine", Level::Warn),
            enabled!(target: "radical_asyncflow::engine", Level::Info),
            enabled!(target: "radical_asyncflow::engine", Level::Debug),
            enabled!(target: "radical_asyncflow::engine", Level::Trace),
        ]
    }

    pub(crate) fn check_runs() -> bool {
        static RAN: AtomicUsize = AtomicUsize::new(0);
        let before = RAN.load(Ordering::Relaxed);
        check!(target: "radical_asyncflow::engine", RAN.fetch_add(1, Ordering::Relaxed) < usize::MAX);
        RAN.load(Ordering::Relaxed) > before
    }

    pub(crate) fn burst(n: u64) {
        for seq in 0..n {
            elide::info!(target: "radical_asyncflow::engine", seq, "burst");
        }
    }

    pub(crate) fn emit() {
        elide::error!(target: "radical_asyncflow::engine", "probe error line");
        elide::info!(target: "radical_asyncflow::engine", "probe info line");
        elide::debug!(target: "radical_asyncflow::engine", "probe debug line");
    }
}

/// Sites of another RADICAL package, outside RADICAL_ASYNCFLOW.
mod pilot {
    use super::*;

    pub(crate) fn levels() -> [bool; 5] {
        [
            enabled!(target: "radical_pilot::agent", Level::Error),
            enabled!(target: "radical_pilot::agent", Level::Warn),
            enabled!(target: "radical_pilot::agent", Level::Info),
            enabled!(target: "radical_pilot::agent", Level::Debug),
            enabled!(target: "radical_pilot::agent", Level::Trace),
        ]
    }
}

/// Sites of the application itself (namespace `env_probe`, the module path).
fn app_levels() -> [bool; 5] {
    [
        enabled!(Level::Error),
        enabled!(Level::Warn),
        enabled!(Level::Info),
        enabled!(Level::Debug),
        enabled!(Level::Trace),
    ]
}

fn app_check_runs() -> bool {
    static RAN: AtomicUsize = AtomicUsize::new(0);
    let before = RAN.load(Ordering::Relaxed);
    check!(RAN.fetch_add(1, Ordering::Relaxed) < usize::MAX);
    RAN.load(Ordering::Relaxed) > before
}

/// The most verbose enabled level, or `off`.
fn most_verbose(enabled: [bool; 5]) -> &'static str {
    match enabled.iter().rposition(|e| *e) {
        Some(i) => Level::ALL[i].to_filter().as_str(),
        None => "off",
    }
}

fn report() {
    println!("probe engine.level={}", most_verbose(engine::levels()));
    println!("probe pilot.level={}", most_verbose(pilot::levels()));
    println!("probe app.level={}", most_verbose(app_levels()));
    println!("probe engine.debug={}", engine::check_runs());
    println!("probe app.debug={}", app_check_runs());
    println!(
        "probe engine.debug_mode={}",
        elide::debug_for("radical_asyncflow::engine")
    );
    println!(
        "probe asyncflow.debug_for={}",
        elide::debug_for("radical.asyncflow")
    );
    println!(
        "probe engine.profile={}",
        elide::telemetry_for("radical_asyncflow::engine")
    );
    println!("probe profile_dir={}", elide::profile_dir().display());
}

fn main() {
    let mut guards = Vec::new();
    for arg in std::env::args().skip(1) {
        let (cmd, param) = arg.split_once(':').unwrap_or((&arg, ""));
        match cmd {
            "init" => guards.push(elide::init()),
            "ns" => guards.push(elide::init_ns(param)),
            "report" => report(),
            "emit" => engine::emit(),
            "burst" => engine::burst(param.parse().expect("burst:<count>")),
            "telemetry" => {
                elide::telemetry!(target: "radical_asyncflow::engine", "probe.event", uid = "u.1")
            }
            "set" => {
                let (k, v) = param.split_once('=').expect("set:VAR=value");
                std::env::set_var(k, v);
            }
            "reload" => elide::reload_from_env(),
            "api-level" => elide::set_level(param.parse::<LevelFilter>().expect("a level")),
            "api-debug-for" => elide::set_debug_for(param, true),
            "api-default" => {
                elide::set_default_level(param.parse::<LevelFilter>().expect("a level"))
            }
            "api-no-sinks" => elide::set_sinks(Vec::<std::sync::Arc<dyn elide::Sink>>::new()),
            "count-sinks" => println!("probe sinks={}", elide::sinks().len()),
            // Which sink objects are installed (their addresses).
            "sink-ids" => {
                let ids: Vec<String> = elide::sinks()
                    .iter()
                    .map(|s| format!("{:p}", std::sync::Arc::as_ptr(s) as *const ()))
                    .collect();
                println!("probe sink-ids={}", ids.join(","));
            }
            // What logrotate does: the file moves away, the process keeps
            // its handle.
            "rotate" => std::fs::rename(param, format!("{param}.1")).expect("rotate"),
            // Ends the process at once: no flush, no exit handlers.
            "abort" => std::process::abort(),
            // A panic of the application itself, caught by the application.
            "user-panic" => {
                let _ = std::panic::catch_unwind(|| panic!("probe user panic"));
            }
            "describe" if param.is_empty() => print!("{}", elide::describe()),
            "describe" => print!("{}", elide::describe_for(param)),
            "entries" => {
                println!("entries-of {param}");
                let d = elide::describe_for(param);
                for e in d.entries() {
                    println!(
                        "entry {}={} origin={} searched=[{}] ignored=[{}]",
                        e.key(),
                        e.value(),
                        e.origin(),
                        e.searched().join(","),
                        e.ignored().join(",")
                    );
                }
                println!(
                    "entries effective={} static={} checks={} telemetry={} lvl-by-entry={}",
                    d.effective_level(),
                    d.static_level(),
                    d.static_checks(),
                    d.static_telemetry(),
                    d.entry("LOG_LVL").map_or("none", |e| e.value())
                );
            }
            other => panic!("unknown probe command {other:?}"),
        }
    }
}
