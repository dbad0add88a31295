//! Spans: `tracing`-style named stretches of work with fields, built on
//! elide's timed scopes.
//!
//! A span site ([`span!`](crate::span!), [`info_span!`](crate::info_span!)
//! .., [`#[instrument]`](crate::instrument)) is gated like a log site of its
//! level: statically by the level features and filters (a span removed
//! there is [`Span::none()`]: no code for the site; at opt-level 0 its
//! guard's drop glue still runs, a test), at run time by one relaxed load of
//! the site's cached interest and a branch. An enabled site copies its
//! fields once into a [`SpanData`], whose parent is the span current on the
//! thread when it was made. When telemetry is also on for its namespace,
//! the span opens a [`Scope`] too (its
//! `<name>_start`/`<name>_stop` pair, the OTLP span), entered and left with
//! the span.
//!
//! While a span is entered ([`Span::enter`], [`Span::entered`],
//! [`Span::in_scope`], or the future of an instrumented `async fn`), every
//! record emitted on the thread carries the chain of entered spans,
//! outermost first ([`Record::span`](crate::Record::span)); the layouts
//! write it (see the [telemetry guide](crate::guide::telemetry)).
//!
//! Spans have no `record`: their fields are fixed when they open.
//!
//! Statics owned here: `STACK` (the spans entered on each thread, for
//! [`Span::current`]; the chain records see is kept beside it, in
//! `span_data`).

use std::cell::RefCell;
use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use crate::record::metadata::Metadata;
use crate::record::span_data;
use crate::record::value::Field;
use crate::site::callsite::Callsite;
use crate::telemetry::scope::{self, Scope};

pub use crate::record::span_data::SpanData;

thread_local! {
    /// The spans entered on this thread, innermost last.
    static STACK: RefCell<Vec<Entry>> = const { RefCell::new(Vec::new()) };
}

/// A span entered on this thread, and its telemetry scope made current
/// with it (left when the entry is dropped).
struct Entry {
    inner: Arc<Inner>,
    // Held for its `Drop` only.
    #[allow(dead_code)]
    scope: Option<scope::Entered>,
}

/// An enabled span: its data for records, and its telemetry scope.
struct Inner {
    data: Arc<SpanData>,
    scope: Option<Scope>,
}

/// A span: the handle a span site returns. Cheap to clone (the clones are
/// the same span); the span's telemetry scope closes when the last clone
/// is dropped. A span that its site's level turned off is
/// [`Span::none()`]: entering it does nothing.
#[derive(Clone, Default)]
pub struct Span {
    // Dropped by hand (`Drop for Span`), so that dropping a disabled span
    // is one test in its drop glue, at opt-level 0 too, instead of the
    // nested drop glue of an `Option<Arc<_>>`.
    inner: ManuallyDrop<Option<Arc<Inner>>>,
}

impl Drop for Span {
    // Always: at opt-level 0 too, dropping a disabled span is a test.
    // A pattern, not `is_some()`, which is a call at opt-level 0.
    #[allow(clippy::redundant_pattern_matching)]
    #[inline(always)]
    fn drop(&mut self) {
        if let Some(_) = &*self.inner {
            release(&mut self.inner);
        }
    }
}

/// Drops an enabled span's handle (out of line: the disabled span's drop
/// stays a test).
#[cold]
#[inline(never)]
fn release(inner: &mut ManuallyDrop<Option<Arc<Inner>>>) {
    // SAFETY: called once, from `Drop for Span`; the field is not used
    // again.
    unsafe { ManuallyDrop::drop(inner) }
}

impl fmt::Debug for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &*self.inner {
            Some(i) => write!(f, "Span({:?})", i.data),
            None => f.write_str("Span(none)"),
        }
    }
}

impl Span {
    /// The disabled span: entering it does nothing, records see no span.
    #[inline(always)]
    pub const fn none() -> Span {
        Span {
            inner: ManuallyDrop::new(None),
        }
    }

    fn of(inner: Inner) -> Span {
        Span {
            inner: ManuallyDrop::new(Some(Arc::new(inner))),
        }
    }

    /// The innermost span entered on this thread, or [`Span::none()`].
    pub fn current() -> Span {
        Span {
            inner: ManuallyDrop::new(
                STACK
                    .try_with(|s| {
                        s.try_borrow()
                            .ok()
                            .and_then(|s| s.last().map(|e| e.inner.clone()))
                    })
                    .ok()
                    .flatten(),
            ),
        }
    }

    /// Whether this is [`Span::none()`] (its site was off).
    #[inline]
    pub fn is_none(&self) -> bool {
        self.inner.is_none()
    }
    /// `tracing`'s name for [`is_none`](Span::is_none).
    #[inline]
    pub fn is_disabled(&self) -> bool {
        self.is_none()
    }

    /// The span's data (name, fields, parent), unless it is disabled.
    pub fn data(&self) -> Option<&SpanData> {
        self.inner.as_ref().map(|i| &*i.data)
    }

    /// The span's telemetry scope, when telemetry was on for its namespace
    /// as it opened.
    pub fn scope(&self) -> Option<&Scope> {
        self.inner.as_ref().and_then(|i| i.scope.as_ref())
    }

    /// Enters the span on this thread until the guard is dropped.
    // Always: at opt-level 0 too, a disabled span's enter is a test.
    #[inline(always)]
    pub fn enter(&self) -> Entered<'_> {
        if let Some(inner) = &*self.inner {
            enter(inner);
        }
        Entered {
            span: self,
            _not_send: PhantomData,
        }
    }

    /// Enters the span and returns it with the guard, owned: tracing's
    /// `let _s = info_span!("x").entered();`.
    // Always: at opt-level 0 too, a disabled span's enter is a test.
    #[inline(always)]
    pub fn entered(self) -> EnteredSpan {
        if let Some(inner) = &*self.inner {
            enter(inner);
        }
        EnteredSpan {
            span: ManuallyDrop::new(self),
            _not_send: PhantomData,
        }
    }

    /// Runs `f` with the span entered.
    // Always: at opt-level 0 too, a disabled span's enter is a test.
    #[inline(always)]
    pub fn in_scope<R>(&self, f: impl FnOnce() -> R) -> R {
        let _e = self.enter();
        f()
    }
}

/// Enters an enabled span on this thread: the chain records see, this
/// thread's stack (for [`Span::current`]) and its scope's.
fn enter(inner: &Arc<Inner>) {
    span_data::enter(&inner.data);
    let _ = STACK.try_with(|s| {
        if let Ok(mut s) = s.try_borrow_mut() {
            s.push(Entry {
                inner: inner.clone(),
                scope: inner.scope.as_ref().map(Scope::enter),
            });
        }
    });
}

/// Leaves an enabled span entered by [`enter`]. Normally the top; a guard
/// dropped out of order is removed wherever it is (its last entry, as a
/// span may be entered twice).
#[cold]
#[inline(never)]
fn leave(inner: &Arc<Inner>) {
    let _ = STACK.try_with(|s| {
        if let Ok(mut s) = s.try_borrow_mut() {
            if let Some(at) = s.iter().rposition(|e| Arc::ptr_eq(&e.inner, inner)) {
                let entry = s.remove(at);
                span_data::exit(&entry.inner.data);
            }
        }
    });
}

/// The guard of [`Span::enter`]: the span is entered on this thread while
/// it lives. Not `Send`: a span is entered on one thread.
#[must_use = "the span is left when the guard is dropped: bind it with `let _e = ..`"]
pub struct Entered<'a> {
    span: &'a Span,
    _not_send: PhantomData<*const ()>,
}

impl Drop for Entered<'_> {
    // Always: at opt-level 0 too, leaving a disabled span is a test.
    #[inline(always)]
    fn drop(&mut self) {
        if let Some(inner) = &*self.span.inner {
            leave(inner);
        }
    }
}

impl fmt::Debug for Entered<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Entered")
            .field("enabled", &!self.span.is_none())
            .finish()
    }
}

/// [`Span::entered`]'s guard, owning the span. Not `Send`.
#[must_use = "the span is left when the guard is dropped: bind it with `let _s = ..`"]
pub struct EnteredSpan {
    // Dropped by hand after leaving: the guard of a disabled span drops as
    // one test, with no drop glue of its own for the span.
    span: ManuallyDrop<Span>,
    _not_send: PhantomData<*const ()>,
}

impl Drop for EnteredSpan {
    // Always: at opt-level 0 too, leaving a disabled span is a test.
    // A pattern, not `is_some()`, which is a call at opt-level 0.
    #[allow(clippy::redundant_pattern_matching)]
    #[inline(always)]
    fn drop(&mut self) {
        if let Some(_) = &*self.span.inner {
            leave_owned(&mut self.span);
        }
    }
}

/// Leaves an entered span and drops it (out of line, see `Drop for
/// EnteredSpan`).
#[cold]
#[inline(never)]
fn leave_owned(span: &mut ManuallyDrop<Span>) {
    if let Some(inner) = &*span.inner {
        leave(inner);
    }
    // SAFETY: called once, from the guard's `Drop`; the span is not used
    // again.
    unsafe { ManuallyDrop::drop(span) }
}

impl fmt::Debug for EnteredSpan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("EnteredSpan").field(&*self.span).finish()
    }
}

impl EnteredSpan {
    /// Leaves the span, handing it back.
    pub fn exit(self) -> Span {
        let mut guard = ManuallyDrop::new(self);
        if let Some(inner) = &*guard.span.inner {
            leave(inner);
        }
        // SAFETY: the guard is not dropped; its span is taken once.
        unsafe { ManuallyDrop::take(&mut guard.span) }
    }
    /// The span.
    pub fn span(&self) -> &Span {
        &self.span
    }
}

/// A future whose span is entered while it is polled: what
/// [`Instrument::instrument`] and an instrumented `async fn` return.
#[derive(Debug)]
#[must_use = "futures do nothing unless polled"]
pub struct Instrumented<F> {
    span: Span,
    inner: F,
}

impl<F: Future> Future for Instrumented<F> {
    type Output = F::Output;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        // SAFETY: `inner` is structurally pinned: never moved out of `self`
        // and only handed out as `Pin<&mut F>`; `span` is not pinned.
        let this = unsafe { self.get_unchecked_mut() };
        let _e = this.span.enter();
        // SAFETY: see above.
        unsafe { Pin::new_unchecked(&mut this.inner) }.poll(cx)
    }
}

/// `tracing`'s `future.instrument(span)`: the span is entered while the
/// future is polled, on whatever thread polls it.
pub trait Instrument: Sized {
    /// Wraps `self` so `span` is entered while it is polled.
    fn instrument(self, span: Span) -> Instrumented<Self> {
        Instrumented { span, inner: self }
    }
    /// Wraps `self` in the span current now.
    fn in_current_span(self) -> Instrumented<Self> {
        self.instrument(Span::current())
    }
}

impl<F: Future> Instrument for F {}

/// What a span site's fields closure is handed: where to put its fields.
#[doc(hidden)]
pub type FieldsTo<'a> = &'a mut dyn FnMut(&[Field<'_>]);

/// Cold path of an enabled span site: makes the span, unless the site
/// turns out disabled. `telemetry` is the site's scope (its start site and
/// stop metadata) where telemetry is not statically off. `fields` hands
/// the site's fields to its argument, so they are evaluated only here.
#[doc(hidden)]
#[cold]
#[inline(never)]
pub fn open_span(
    cs: &'static Callsite,
    needed: u8,
    telemetry: Option<(&'static Callsite, &'static Metadata)>,
    fields: &mut dyn FnMut(FieldsTo<'_>),
) -> Span {
    if crate::runtime::route::of_site(cs, needed).is_none() {
        return Span::none();
    }
    let meta = cs.metadata();
    let mut span = Span::none();
    fields(&mut |f| {
        let scope = telemetry.and_then(|(start, stop)| scope::open_for(start, stop, f));
        let parent = span_data::entered();
        let data = SpanData::new(meta.name(), meta.target(), meta.level(), f, parent);
        span = Span::of(Inner {
            data: Arc::new(data),
            scope,
        });
    });
    span
}

/// `#[instrument]` on an `async fn`: the body's future with its span.
#[doc(hidden)]
#[inline]
pub fn instrumented<F: Future>(span: Span, inner: F) -> Instrumented<F> {
    Instrumented { span, inner }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::level::Level;
    use crate::record::value::Value;

    fn span(name: &'static str, fields: &[Field<'_>], parent: Option<Arc<SpanData>>) -> Span {
        Span::of(Inner {
            data: Arc::new(SpanData::new(name, "t", Level::Info, fields, parent)),
            scope: None,
        })
    }

    /// A span moves between threads and is shared, as `tracing`'s is (an
    /// instrumented future is `Send` when its body is).
    #[test]
    fn a_span_is_send_and_sync() {
        fn send_sync<T: Send + Sync>() {}
        send_sync::<Span>();
        send_sync::<Instrumented<std::future::Ready<()>>>();
    }

    /// Entering nests; leaving (in or out of order) restores the stack;
    /// `none` is never current.
    #[test]
    fn entering_nests_and_leaving_restores() {
        let outer = span("outer", &[("a", Value::U64(1))], None);
        assert!(Span::current().is_none());
        let e = outer.enter();
        assert_eq!(Span::current().data().unwrap().name(), "outer");
        let inner = span("inner", &[], span_data::current_data());
        let inner_guard = inner.clone().entered();
        Span::none().in_scope(|| {
            let chain = span_data::current_data().unwrap();
            let names: Vec<_> = chain.chain().iter().map(|s| s.name()).collect();
            assert_eq!(names, ["outer", "inner"]);
        });
        drop(e);
        assert_eq!(Span::current().data().unwrap().name(), "inner");
        drop(inner_guard.exit());
        assert!(Span::current().is_none());
    }
}
