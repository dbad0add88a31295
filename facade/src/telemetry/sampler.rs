//! A background thread that publishes counter totals as telemetry events.
//!
//! `counter!` never reads a clock; time enters only here, once per interval
//! for all counters together.

use std::io;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::dispatch::dispatch;
use crate::record::level::Level;
use crate::record::metadata::{Kind, Metadata};
use crate::record::value::Value;
use crate::record::Record;
use crate::site::callsite::Callsite;

static SITE: Callsite = Callsite::new(Metadata::new(
    Kind::Telemetry,
    Level::Info,
    CounterSampler::TARGET,
    module_path!(),
    file!(),
    line!(),
    CounterSampler::EVENT,
));

/// Handle of a running counter sampler; stopping it (or dropping it)
/// publishes one last round and joins the thread.
#[derive(Debug)]
#[must_use = "dropping the handle stops the sampler"]
pub struct CounterSampler {
    stop: Arc<(Mutex<bool>, Condvar)>,
    thread: Option<JoinHandle<()>>,
}

/// Starts a thread (`elide-counters`) that every `interval` emits one
/// telemetry event per counter name: event [`CounterSampler::EVENT`], target
/// [`CounterSampler::TARGET`], fields `uid` = the counter's name and `value` = its
/// total (`u64`), as in [`counters`](crate::counters). In a `.prof` file
/// this reads `<t>,counter,elide::counters,elide-counters,<name>,,value=<total>`.
///
/// Ticks are on a fixed schedule from the start (a late tick does not shift
/// the next ones; missed ticks are skipped, not bunched up). An interval of
/// zero is treated as one millisecond.
///
/// ```
/// use std::time::Duration;
/// let sampler = elide::telemetry::start_counter_sampler(Duration::from_secs(1))?;
/// elide::counter!("doc.sampled");
/// drop(sampler); // publishes the final totals, then stops
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn start_counter_sampler(interval: Duration) -> io::Result<CounterSampler> {
    let interval = interval.max(Duration::from_millis(1));
    let stop = Arc::new((Mutex::new(false), Condvar::new()));
    let flag = stop.clone();
    let thread = std::thread::Builder::new()
        .name("elide-counters".into())
        .spawn(move || run(interval, &flag))?;
    Ok(CounterSampler {
        stop,
        thread: Some(thread),
    })
}

fn run(interval: Duration, stop: &(Mutex<bool>, Condvar)) {
    let (lock, wake) = stop;
    let start = Instant::now();
    let mut tick: u32 = 1;
    let mut stopped = lock.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        let due = start + interval.saturating_mul(tick);
        let now = Instant::now();
        if *stopped {
            break;
        }
        if now < due {
            stopped = wake
                .wait_timeout(stopped, due - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
            continue;
        }
        drop(stopped);
        publish();
        // Skip ticks that are already past instead of firing them back to back.
        let elapsed = start.elapsed().as_nanos() / interval.as_nanos().max(1);
        tick = u32::try_from(elapsed + 1).unwrap_or(u32::MAX);
        stopped = lock.lock().unwrap_or_else(|e| e.into_inner());
    }
    drop(stopped);
    publish();
}

/// Emits one event per counter name, if telemetry is on for
/// [`CounterSampler::TARGET`] and a sink wants telemetry.
fn publish() {
    if crate::runtime::configured(&SITE) < 1 {
        return;
    }
    for (name, total) in crate::site::counter::counters() {
        let fields = [("uid", Value::Str(name)), ("value", Value::U64(total))];
        dispatch(&Record::new(
            SITE.metadata(),
            Level::Info,
            format_args!("{}", CounterSampler::EVENT),
            &fields,
        ));
    }
}

impl CounterSampler {
    /// Event name of the sampler's records: `counter`.
    pub const EVENT: &'static str = "counter";
    /// Namespace of the sampler's records: `elide::counters`. Telemetry
    /// must be on for it (`set_telemetry(true)`, or
    /// `set_telemetry_for("elide::counters", true)`).
    pub const TARGET: &'static str = "elide::counters";

    /// Publishes a final round and stops the thread (same as dropping).
    pub fn stop(self) {}
}

impl Drop for CounterSampler {
    fn drop(&mut self) {
        let (lock, wake) = &*self.stop;
        *lock.lock().unwrap_or_else(|e| e.into_inner()) = true;
        wake.notify_all();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
