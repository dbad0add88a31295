//! Timed scopes: `scope!` and `#[timed]`.
//!
//! A scope is a pair of telemetry events around a stretch of code: the
//! event `<name>_start` when it opens and `<name>_stop` when it closes (the
//! radical.utils convention of `exec_start`/`exec_stop` pairs). Both carry
//! the site's fields and:
//!
//! - `scope`: the scope's id, unique in the process (from 1);
//! - `parent`: the id of the scope that was current on the same thread when
//!   this one opened (absent for a root scope);
//! - `trace`: the id of the root of the chain (the scope's own id for a root);
//! - on the stop event only, `duration_ns`: monotonic nanoseconds between
//!   the two events. The stop event's time is the start event's plus this
//!   duration, so `stop.time - start.time == duration_ns` exactly.
//!
//! "Current" is a per-thread stack: the guard of `scope!` pushes its id while
//! it lives; the future of a `#[timed] async fn` pushes its id only while it
//! is polled, so scopes opened inside it (on whatever thread polls it) have
//! it as parent, and other tasks on that thread do not.
//!
//! The scope is built only on the cold path of an enabled site: when
//! telemetry is off the guard is `None` and no clock is read.

use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant, SystemTime};

use crate::dispatch::dispatch;
use crate::record::metadata::Metadata;
use crate::record::scope_stack::{current, pop, push};
use crate::record::value::{Field, Value};
use crate::record::Record;
use crate::sink::OwnedValue;
use crate::site::callsite::Callsite;

use crate::record::scope_names::{
    DURATION_FIELD, PARENT_FIELD, SCOPE_FIELD, START_SUFFIX, STOP_SUFFIX, TRACE_FIELD,
};

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// Makes the scope `(id, trace)` current on this thread until the
/// returned value is dropped: a scope handed over from another thread.
pub(crate) fn enter_ids(id: u64, trace: u64) -> Entered {
    push(id, trace);
    Entered {
        id,
        _not_send: PhantomData,
    }
}

/// An open timed scope, not tied to a thread: it emits its stop event when
/// dropped. `scope!` wraps it in a [`ScopeGuard`]; `#[timed] async fn`
/// in a future that makes it current while polled.
pub struct Scope {
    id: u64,
    parent: u64,
    trace: u64,
    started: Instant,
    start_time: SystemTime,
    stop: &'static Metadata,
    /// The site's fields, kept from the start event for the stop event:
    /// the site's arguments are evaluated once.
    fields: Vec<(&'static str, OwnedValue)>,
}

impl fmt::Debug for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Scope")
            .field("name", &self.stop.name())
            .field("id", &self.id)
            .field("parent", &self.parent)
            .finish()
    }
}

impl Scope {
    /// Field name of a scope's id on its events: `scope`.
    pub const SCOPE_FIELD: &'static str = SCOPE_FIELD;
    /// Field name of the parent scope's id (absent on a root scope):
    /// `parent`.
    pub const PARENT_FIELD: &'static str = PARENT_FIELD;
    /// Field name of the root scope's id (the trace a scope belongs to):
    /// `trace`.
    pub const TRACE_FIELD: &'static str = TRACE_FIELD;
    /// Field name of the duration, in nanoseconds, on a stop event:
    /// `duration_ns`.
    pub const DURATION_FIELD: &'static str = DURATION_FIELD;
    /// Suffix of a scope's opening event name: `_start`.
    pub const START_SUFFIX: &'static str = START_SUFFIX;
    /// Suffix of a scope's closing event name: `_stop`.
    pub const STOP_SUFFIX: &'static str = STOP_SUFFIX;

    /// Opens a scope: assigns its id, finds its parent, reads the clocks
    /// and emits the start event.
    fn open(start: &'static Metadata, stop: &'static Metadata, fields: &[Field<'_>]) -> Scope {
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        let (parent, trace) = current().unwrap_or((0, id));
        let start_time = SystemTime::now();
        let started = Instant::now();
        let scope = Scope {
            id,
            parent,
            trace,
            started,
            start_time,
            stop,
            fields: fields
                .iter()
                .map(|(k, v)| (*k, OwnedValue::from(v)))
                .collect(),
        };
        scope.emit(start, start_time, None);
        scope
    }

    /// The scope's id (its events' `scope` field).
    pub fn id(&self) -> u64 {
        self.id
    }
    /// The parent scope's id, if it has one.
    pub fn parent(&self) -> Option<u64> {
        (self.parent != 0).then_some(self.parent)
    }
    /// The root scope's id.
    pub fn trace(&self) -> u64 {
        self.trace
    }

    fn emit(&self, meta: &'static Metadata, time: SystemTime, duration: Option<Duration>) {
        let mut fields: Vec<Field<'_>> = Vec::with_capacity(self.fields.len() + 4);
        fields.extend(self.fields.iter().map(|(k, v)| (*k, v.as_value())));
        fields.push((SCOPE_FIELD, Value::U64(self.id)));
        if self.parent != 0 {
            fields.push((PARENT_FIELD, Value::U64(self.parent)));
        }
        fields.push((TRACE_FIELD, Value::U64(self.trace)));
        if let Some(d) = duration {
            let ns = u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
            fields.push((DURATION_FIELD, Value::U64(ns)));
        }
        let name = meta.name();
        dispatch(&Record::new(meta, meta.level(), format_args!("{name}"), &fields).with_time(time));
    }

    /// Makes this scope current on this thread until the returned value is
    /// dropped.
    pub(crate) fn enter(&self) -> Entered {
        push(self.id, self.trace);
        Entered {
            id: self.id,
            _not_send: PhantomData,
        }
    }
}

impl Drop for Scope {
    fn drop(&mut self) {
        let d = self.started.elapsed();
        self.emit(self.stop, self.start_time + d, Some(d));
    }
}

/// While alive, a scope is current on this thread.
pub(crate) struct Entered {
    id: u64,
    _not_send: PhantomData<*const ()>,
}

impl Drop for Entered {
    fn drop(&mut self) {
        pop(self.id);
    }
}

/// The guard of `scope!`: the scope is current on this thread while the
/// guard lives; dropping it emits the stop event. Not `Send`: a scope is
/// current on the thread that opened it.
#[must_use = "the scope closes when the guard is dropped: bind it with `let _s = ..`"]
pub struct ScopeGuard {
    // Field order is drop order: leave the stack, then emit the stop event.
    // Held for its `Drop` only.
    #[allow(dead_code)]
    entered: Entered,
    scope: Scope,
}

impl fmt::Debug for ScopeGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.scope.fmt(f)
    }
}

impl ScopeGuard {
    /// The open scope.
    pub fn scope(&self) -> &Scope {
        &self.scope
    }

    fn new(scope: Scope) -> ScopeGuard {
        ScopeGuard {
            entered: scope.enter(),
            scope,
        }
    }
}

/// What a statically disabled `scope!` yields: nothing, with no drop glue.
#[derive(Debug, Clone, Copy)]
#[must_use = "the scope closes when the guard is dropped: bind it with `let _s = ..`"]
pub struct NoScope;

/// The future of a `#[timed] async fn`: its scope is current while the
/// inner future is polled, and closes when the inner future completes (or
/// is dropped unfinished).
#[derive(Debug)]
#[must_use = "futures do nothing unless polled"]
pub struct Timed<F> {
    scope: Option<Scope>,
    inner: F,
}

impl<F: Future> Future for Timed<F> {
    type Output = F::Output;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        // SAFETY: `inner` is structurally pinned: it is never moved out of
        // `self` and only ever handed out as `Pin<&mut F>`; `scope` is not
        // pinned (it is `Unpin` and only taken by value when done).
        let this = unsafe { self.get_unchecked_mut() };
        let entered = this.scope.as_ref().map(Scope::enter);
        // SAFETY: see above: `inner` stays where it is for as long as `self`.
        let inner = unsafe { Pin::new_unchecked(&mut this.inner) };
        let out = inner.poll(cx);
        drop(entered);
        if out.is_ready() {
            drop(this.scope.take());
        }
        out
    }
}

/// Cold path of an enabled `scope!` (and of `#[timed]`): opens the scope,
/// unless the site turns out disabled. `fields` hands the site's fields to
/// its argument, so they are evaluated only here.
#[cold]
#[inline(never)]
pub fn open_scope(
    cs: &'static Callsite,
    needed: u8,
    stop: &'static Metadata,
    fields: impl FnOnce(&mut dyn FnMut(&[Field<'_>])),
) -> Option<Scope> {
    if needed > crate::runtime::current(cs) {
        return None;
    }
    let mut scope = None;
    fields(&mut |f| scope = Some(Scope::open(cs.metadata(), stop, f)));
    scope
}

/// A span's scope (see [`crate::span`]): opened with the span's fields
/// when telemetry is on for the start site's namespace.
pub(crate) fn open_for(
    start: &'static Callsite,
    stop: &'static Metadata,
    fields: &[Field<'_>],
) -> Option<Scope> {
    (crate::site::static_gate::INTEREST_ON <= crate::runtime::current(start))
        .then(|| Scope::open(start.metadata(), stop, fields))
}

/// `scope!`'s guard: the scope made current on this thread.
#[inline]
#[must_use = "the scope closes when the guard is dropped: bind it with `let _s = ..`"]
pub fn scope_guard(scope: Option<Scope>) -> Option<ScopeGuard> {
    scope.map(ScopeGuard::new)
}

/// The guard of a `scope!` whose type the build's `cfg` decides (a scope
/// statically off in one of debug and release builds), handed back as it
/// is: a must-use call, so dropping it at once warns in either build.
#[inline(always)]
#[must_use = "the scope closes when the guard is dropped: bind it with `let _s = ..`"]
pub fn scope_bind<G>(guard: G) -> G {
    guard
}

/// `#[timed] async fn`'s future.
#[inline]
pub fn timed<F: Future>(scope: Option<Scope>, inner: F) -> Timed<F> {
    Timed { scope, inner }
}

/// `#[timed] async fn` with its output type named where it can be (not
/// for `impl Trait`): a hint only, as the awaited future is the function's
/// tail and its output is inferred from the return type either way.
#[inline]
pub fn timed_as<R, F: Future<Output = R>>(scope: Option<Scope>, inner: F) -> Timed<F> {
    Timed { scope, inner }
}
