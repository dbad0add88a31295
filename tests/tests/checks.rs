//! Debug checks: `check!`, `check_eq!`, `check_ne!`, `#[checked]` and
//! `debug_mode!`, gated by debug mode per namespace.
//!
//! Debug mode, the failure policy, the sinks and the panic hook are process
//! wide, so every test takes `serial()` and sets what it relies on.

use elide_tests::{serial, YieldOnce};
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Wake, Waker};

use elide::sink::{MemorySink, OwnedRecord};
use elide::{check, check_eq, check_ne, checked, CheckFailure, Kind, Level};

/// Serialises the test and installs a fresh memory sink, debug mode `debug`
/// everywhere and the panic policy.
fn setup(debug: bool) -> (MutexGuard<'static, ()>, Arc<MemorySink>) {
    let guard = serial();
    let mem = Arc::new(MemorySink::new());
    elide::set_sinks([mem.clone() as Arc<dyn elide::Sink>]);
    elide::set_debug(debug);
    elide::set_check_failure(CheckFailure::Panic);
    (guard, mem)
}

/// A side effect to count: how often a condition, operand or message ran.
struct Probe(AtomicUsize);

impl Probe {
    const fn new() -> Probe {
        Probe(AtomicUsize::new(0))
    }
    fn hit<T>(&self, v: T) -> T {
        self.0.fetch_add(1, Ordering::SeqCst);
        v
    }
    fn take(&self) -> usize {
        self.0.swap(0, Ordering::SeqCst)
    }
}

/// Runs `f`, expecting a panic; returns its message.
fn panic_message(f: impl FnOnce()) -> String {
    let err = catch_unwind(AssertUnwindSafe(f)).expect_err("expected the check to panic");
    match err.downcast::<String>() {
        Ok(s) => *s,
        Err(e) => e
            .downcast::<&str>()
            .map(|s| s.to_string())
            .unwrap_or_default(),
    }
}

/// Runs `f` under a panic hook that records the panic's location.
fn panic_location(f: impl FnOnce()) -> (String, u32) {
    static LOC: Mutex<Option<(String, u32)>> = Mutex::new(None);
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(|info| {
        let loc = info.location().expect("panic location");
        *LOC.lock().unwrap() = Some((loc.file().to_owned(), loc.line()));
    }));
    let r = catch_unwind(AssertUnwindSafe(f));
    std::panic::set_hook(previous);
    assert!(r.is_err(), "expected a panic");
    LOC.lock().unwrap().take().expect("hook ran")
}

fn check_records(mem: &MemorySink) -> Vec<OwnedRecord> {
    mem.take()
        .into_iter()
        .filter(|r| r.kind == Kind::Check)
        .collect()
}

/// Polls a future to completion on this thread.
fn block_on<F: Future>(f: F) -> F::Output {
    struct Noop;
    impl Wake for Noop {
        fn wake(self: Arc<Self>) {}
    }
    let waker = Waker::from(Arc::new(Noop));
    let mut cx = Context::from_waker(&waker);
    let mut f = std::pin::pin!(f);
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

static COND: Probe = Probe::new();
static OPERAND: Probe = Probe::new();
static MESSAGE: Probe = Probe::new();
static PRE: Probe = Probe::new();
static POST: Probe = Probe::new();
static PRE_MESSAGE: Probe = Probe::new();

#[checked(
    requires(PRE.hit(x) < 100, "x too large: {}", PRE_MESSAGE.hit(x)),
    ensures(|r| POST.hit(*r) > x, "did not grow")
)]
fn grow(x: u32) -> u32 {
    x + 1
}

/// Every kind of site, with probes in everything the site may evaluate.
fn all_sites(x: u32) {
    check!(COND.hit(x) < 100, "bad x {}", MESSAGE.hit(x));
    check_eq!(OPERAND.hit(x), x, "eq {}", MESSAGE.hit(x));
    check_ne!(OPERAND.hit(x), x + 1, "ne {}", MESSAGE.hit(x));
    assert_eq!(grow(x), x + 1);
}

#[test]
fn debug_mode_off_evaluates_nothing() {
    let (_g, mem) = setup(false);
    for x in 0..3 {
        all_sites(x);
    }
    assert!(!elide::debug_mode!());
    assert_eq!(
        [
            COND.take(),
            OPERAND.take(),
            MESSAGE.take(),
            PRE.take(),
            POST.take()
        ],
        [0; 5]
    );
    assert_eq!(PRE_MESSAGE.take(), 0);
    assert!(check_records(&mem).is_empty());
}

#[test]
fn debug_mode_on_evaluates_conditions_but_messages_only_on_failure() {
    let (_g, mem) = setup(true);
    for x in 0..3 {
        all_sites(x);
    }
    assert!(elide::debug_mode!());
    assert_eq!(COND.take(), 3);
    assert_eq!(OPERAND.take(), 6);
    assert_eq!(PRE.take(), 3);
    assert_eq!(POST.take(), 3);
    assert_eq!(
        MESSAGE.take(),
        0,
        "messages of passing checks are not built"
    );
    assert_eq!(PRE_MESSAGE.take(), 0);
    assert!(check_records(&mem).is_empty());

    // Switching off again rewrites the cached sites.
    elide::set_debug(false);
    all_sites(1);
    assert_eq!(COND.take() + OPERAND.take() + PRE.take() + POST.take(), 0);
}

#[test]
fn failed_check_panics_with_location_condition_and_message() {
    let (_g, mem) = setup(true);
    let v = vec![1, 2];
    let line = line!() + 2;
    let msg = panic_message(|| {
        check!(
            v.len() == 3 && v[0] > -1,
            "vector {:?} has {} items",
            v,
            v.len()
        );
    });
    assert_eq!(
        msg,
        format!(
            "tests/tests/checks.rs:{line}: check failed: `v.len() == 3 && v[0] > -1`: vector [1, 2] has 2 items"
        )
    );
    // The record reached the sinks at error level before the panic.
    let recs = check_records(&mem);
    assert_eq!(recs.len(), 1);
    assert_eq!(recs[0].level, Level::Error);
    assert_eq!(recs[0].name, "v.len() == 3 && v[0] > -1");
    assert_eq!(recs[0].line, line);
    assert_eq!(recs[0].module_path, module_path!());
    assert_eq!(
        recs[0].message,
        "check failed: `v.len() == 3 && v[0] > -1`: vector [1, 2] has 2 items"
    );

    // The panic itself is reported at the check, not inside elide.
    let line = line!() + 1;
    let (file, at) = panic_location(|| check!(v.is_empty()));
    assert_eq!((file.as_str(), at), ("tests/tests/checks.rs", line));
}

#[test]
fn condition_text_is_the_source_text() {
    let (_g, mem) = setup(true);
    elide::set_check_failure(CheckFailure::Log);
    failing_checks_as_written();
    let names: Vec<_> = check_records(&mem).into_iter().map(|r| r.name).collect();
    assert_eq!(
        names,
        [
            "v.iter().map(|x| x * 2).sum::<i32>() == 7",
            "v.len() > 10",
            "v[0] == -1_i32 + 1",
            "s == \"a  b\" && { let t = s.trim(); t.is_empty() }",
        ]
    );
}

/// Odd spacing, comments and line breaks on purpose: the condition text
/// keeps every token as written and turns each gap into one space.
#[rustfmt::skip]
fn failing_checks_as_written() {
    let v = [1, 2, 3];
    let s = "a b";
    check!(v.iter().map(|x| x * 2).sum::<i32>() == 7 /* six */);
    check!(
        v.len()   /* three */
            > 10
    );
    check_eq!(v[0],-1_i32 + 1);
    check!(s == "a  b" && {
        let t = s.trim();
        t.is_empty()
    });
}

#[test]
fn check_eq_and_check_ne_show_the_values() {
    let (_g, _mem) = setup(true);
    let (a, b) = (2, 3);
    let line = line!() + 1;
    let msg = panic_message(|| check_eq!(a, b, "sizes differ by {}", b - a));
    assert_eq!(
        msg,
        format!(
            "tests/tests/checks.rs:{line}: check failed: `a == b` (left: 2, right: 3): sizes differ by 1"
        )
    );
    let uid = "task.1";
    let msg = panic_message(|| check_ne!(uid, "task.1"));
    assert!(
        msg.ends_with("check failed: `uid != \"task.1\"` (both: \"task.1\")"),
        "{msg}"
    );
}

#[test]
fn log_policy_logs_at_error_and_continues() {
    let (_g, mem) = setup(true);
    elide::set_check_failure(CheckFailure::Log);
    let mut reached = 0;
    for n in 0..3 {
        check!(n < 1, "n = {n}");
        reached += 1;
    }
    assert_eq!(
        grow(200),
        201,
        "a failed precondition does not stop the call"
    );
    elide::set_check_failure(CheckFailure::Panic);
    assert_eq!(reached, 3);
    let recs = check_records(&mem);
    let messages: Vec<_> = recs.iter().map(|r| r.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "check failed: `n < 1`: n = 1",
            "check failed: `n < 1`: n = 2",
            "precondition of `grow` failed: `PRE.hit(x) < 100`: x too large: 200",
        ]
    );
    assert!(recs.iter().all(|r| r.level == Level::Error));
    PRE.take();
    POST.take();
    PRE_MESSAGE.take();
}

// ---- #[checked] on every kind of function --------------------------------

/// Docs and other attributes stay on the function.
#[checked(
    requires(divisor != 0, "cannot divide {} by zero", dividend),
    requires(dividend < 1000),
    ensures(|q| *q <= dividend, "quotient above the dividend"),
    ensures(|q| q * divisor <= dividend)
)]
#[must_use]
fn divide(dividend: u32, divisor: u32) -> u32 {
    dividend / divisor
}

// If `#[checked]` dropped the `cfg`, these two would clash.
#[checked(requires(false))]
#[cfg(any())]
fn twin() -> u8 {
    0
}
#[checked(requires(true))]
#[cfg(not(any()))]
fn twin() -> u8 {
    1
}

/// Early `return` and `?` leave the body through the postconditions.
#[checked(ensures(|r| *r < 5, "too big"))]
fn early(x: u32) -> u32 {
    if x == 0 {
        return 5;
    }
    x
}

#[checked(ensures(|r: &Result<u32, String>| r.is_ok(), "returned an error"))]
fn parse_small(s: &str) -> Result<u32, String> {
    let n: u32 = s.parse().map_err(|e| format!("{e}"))?;
    Ok(n)
}

#[checked(
    requires(!items.is_empty(), "empty input"),
    ensures(|m| items.contains(m))
)]
fn largest<T>(items: &[T]) -> T
where
    T: PartialOrd + Copy,
{
    let mut best = items[0];
    for &i in items {
        if i > best {
            best = i;
        }
    }
    best
}

#[checked(requires(n > 0), ensures(|it| it.size_hint().0 == n as usize))]
fn countdown(n: u32) -> impl Iterator<Item = u32> {
    (0..n).rev()
}

// The body's type comes from the return type (`collect`), which the
// expansion must therefore repeat; an `impl Trait` inside a tuple must not
// be repeated (it cannot be written in a `let`).
#[checked(ensures(|v| v.len() == n as usize))]
fn collected(n: u32) -> Vec<u32> {
    (0..n).collect()
}

// Outer attributes stay on the function, inner ones in its body.
#[checked(requires(x > 0))]
#[inline]
fn attributed(x: u32) -> u32 {
    #![allow(clippy::let_and_return)]
    let y = x + 1;
    y
}

#[checked(ensures(|(_, n)| *n == 2))]
fn with_count() -> (impl Iterator<Item = u32>, usize) {
    (0..2, 2)
}

struct Queue {
    items: Vec<u32>,
    cap: usize,
}

impl Queue {
    #[checked(requires(self.items.len() < self.cap, "queue full"), ensures(|_| !self.items.is_empty()))]
    fn push(&mut self, v: u32) {
        self.items.push(v);
    }

    #[checked(requires(!self.items.is_empty()), ensures(|r| **r == self.items[0]))]
    fn first(&self) -> &u32 {
        &self.items[0]
    }

    #[checked(requires(i < self.items.len()), ensures(|r| **r < 1000))]
    fn slot(&mut self, i: usize) -> &mut u32 {
        &mut self.items[i]
    }

    #[checked(requires(self.cap > 0), ensures(|v| v.len() <= 4, "too many items"))]
    fn into_items(self) -> Vec<u32> {
        self.items
    }
}

#[checked(requires(x < 100, "async x {}", x), ensures(|r| *r == x * 2))]
async fn double_later(x: u32) -> u32 {
    YieldOnce::new().await;
    if x == 7 {
        return 0;
    }
    x * 2
}

#[checked(ensures(|r| r.is_ok()))]
async fn parse_later(s: &str) -> Result<u32, std::num::ParseIntError> {
    YieldOnce::new().await;
    let n: u32 = s.parse()?;
    Ok(n)
}

impl Queue {
    #[checked(requires(!self.items.is_empty()), ensures(|r| *r > 0))]
    async fn sum_later(&self) -> u32 {
        YieldOnce::new().await;
        self.items.iter().sum()
    }
}

#[test]
fn checked_passes_through_values_when_conditions_hold() {
    assert_eq!(collected(3), [0, 1, 2]);
    assert_eq!(attributed(1), 2);
    assert_eq!(with_count().0.sum::<u32>(), 1);
    let (_g, mem) = setup(true);
    assert_eq!(divide(7, 2), 3);
    assert_eq!(twin(), 1);
    assert_eq!(early(3), 3);
    assert_eq!(parse_small("12"), Ok(12));
    assert_eq!(largest(&[3, 9, 2]), 9);
    assert_eq!(largest::<f64>(&[0.5, -1.0]), 0.5);
    assert_eq!(countdown(3).collect::<Vec<_>>(), [2, 1, 0]);
    let mut q = Queue {
        items: vec![],
        cap: 2,
    };
    q.push(4);
    q.push(5);
    assert_eq!(*q.first(), 4);
    *q.slot(1) += 1;
    assert_eq!(block_on(double_later(21)), 42);
    assert_eq!(block_on(parse_later("8")), Ok(8));
    assert_eq!(block_on(q.sum_later()), 10);
    assert_eq!(q.into_items(), [4, 6]);
    assert!(check_records(&mem).is_empty());
}

#[test]
fn checked_failures_name_the_function_condition_and_message() {
    let (_g, mem) = setup(true);
    let msg = panic_message(|| {
        let _ = divide(7, 0);
    });
    assert!(
        msg.ends_with("precondition of `divide` failed: `divisor != 0`: cannot divide 7 by zero"),
        "{msg}"
    );
    let recs = check_records(&mem);
    assert_eq!(recs.len(), 1);
    assert_eq!(recs[0].name, "divisor != 0");
    let cond_line = include_str!("checks.rs")
        .lines()
        .position(|l| l.contains("requires(divisor != 0"))
        .unwrap() as u32
        + 1;
    assert_eq!(recs[0].line, cond_line);
    // The record and the panic point at the condition inside the attribute.
    let (file, line) = panic_location(|| {
        let _ = divide(7, 0);
    });
    assert_eq!(
        (file.as_str(), line),
        ("tests/tests/checks.rs", recs[0].line)
    );
    assert!(msg.starts_with(&format!("tests/tests/checks.rs:{}: ", recs[0].line)));

    let msg = panic_message(|| {
        let mut q = Queue {
            items: vec![1],
            cap: 1,
        };
        q.push(2);
    });
    assert!(
        msg.ends_with("precondition of `push` failed: `self.items.len() < self.cap`: queue full"),
        "{msg}"
    );
    let msg = panic_message(|| {
        let q = Queue {
            items: vec![1; 5],
            cap: 9,
        };
        let _ = q.into_items();
    });
    assert!(
        msg.ends_with("postcondition of `into_items` failed: `v.len() <= 4`: too many items"),
        "{msg}"
    );
    let msg = panic_message(|| {
        let mut q = Queue {
            items: vec![1],
            cap: 1,
        };
        *q.slot(0) = 2000;
        let _ = q.slot(0);
    });
    assert!(
        msg.ends_with("postcondition of `slot` failed: `**r < 1000`"),
        "{msg}"
    );
    let msg = panic_message(|| {
        largest::<u8>(&[]);
    });
    assert!(msg.contains("`!items.is_empty()`: empty input"), "{msg}");
    mem.clear();
}

#[test]
fn checked_postconditions_see_early_returns_and_question_marks() {
    let (_g, _mem) = setup(true);
    let msg = panic_message(|| {
        early(0);
    });
    assert!(
        msg.ends_with("postcondition of `early` failed: `*r < 5`: too big"),
        "{msg}"
    );
    let msg = panic_message(|| {
        let _ = parse_small("x");
    });
    assert!(msg.ends_with("`r.is_ok()`: returned an error"), "{msg}");
    let msg = panic_message(|| {
        block_on(double_later(7));
    });
    assert!(
        msg.ends_with("postcondition of `double_later` failed: `*r == x * 2`"),
        "{msg}"
    );
    let msg = panic_message(|| {
        let _ = block_on(parse_later("-"));
    });
    assert!(
        msg.ends_with("postcondition of `parse_later` failed: `r.is_ok()`"),
        "{msg}"
    );
    let msg = panic_message(|| {
        block_on(double_later(100));
    });
    assert!(
        msg.ends_with("precondition of `double_later` failed: `x < 100`: async x 100"),
        "{msg}"
    );

    // Off: the same calls return whatever the body returns.
    elide::set_debug(false);
    assert_eq!(early(0), 5);
    assert!(parse_small("x").is_err());
    assert_eq!(block_on(double_later(7)), 0);
}

// ---- debug mode per namespace ---------------------------------------------

static SCHED_RUNS: Probe = Probe::new();
static OTHER_RUNS: Probe = Probe::new();

mod scheduler {
    use super::SCHED_RUNS;

    #[elide::checked(requires(SCHED_RUNS.hit(true)))]
    pub fn checked_fn() {}

    pub(crate) fn sites() -> bool {
        elide::check!(SCHED_RUNS.hit(true));
        elide::debug_mode!()
    }

    pub(crate) mod queue {
        pub(crate) fn sites() -> bool {
            elide::check!(super::SCHED_RUNS.hit(true));
            elide::debug_mode!()
        }
    }
}

mod other {
    use super::OTHER_RUNS;

    #[elide::checked(requires(OTHER_RUNS.hit(true)))]
    pub fn checked_fn() {}

    pub(crate) fn sites() -> bool {
        elide::check!(OTHER_RUNS.hit(true));
        elide::check!(target: "checks::scheduler", super::SCHED_RUNS.hit(true));
        elide::debug_mode!()
    }
}

#[test]
fn debug_mode_per_namespace() {
    let (_g, _mem) = setup(false);
    elide::set_debug_for("checks::scheduler", true);

    assert!(scheduler::sites());
    assert!(scheduler::queue::sites(), "a namespace covers its children");
    scheduler::checked_fn();
    assert_eq!(SCHED_RUNS.take(), 3);
    assert!(!other::sites());
    other::checked_fn();
    assert_eq!(OTHER_RUNS.take(), 0);
    assert_eq!(SCHED_RUNS.take(), 1, "`target:` picks the namespace");

    assert!(elide::debug_for("checks::scheduler::queue"));
    assert!(!elide::debug_for("checks::other"));
    assert!(!elide::debug_for("checks::elsewhere"));

    // A more specific rule wins over the global switch, both ways.
    elide::set_debug(true);
    elide::set_debug_for("checks::scheduler::queue", false);
    assert!(scheduler::sites());
    assert!(!scheduler::queue::sites());
    assert!(other::sites());
    assert!(elide::debug_for("checks::elsewhere"));
    SCHED_RUNS.take();
    OTHER_RUNS.take();

    elide::set_debug_for("checks::scheduler", false);
    elide::set_debug_for("checks::scheduler::queue", true);
    elide::set_debug(false);
}
