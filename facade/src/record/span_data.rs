//! What a record keeps of the spans it was emitted in, and which spans
//! those are: the data of each span ([`SpanData`], shared), the chain of
//! spans entered on each thread, and the chain of a bridged `tracing`
//! event while it is emitted. The spans themselves ([`crate::span`]) and
//! the records ([`crate::Record::span`]) build on this.
//!
//! Statics owned here: `USED`, `CHAIN` (the data of the spans entered on
//! each thread) and `BRIDGED`.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::record::level::Level;
use crate::record::owned_value::OwnedValue;
use crate::record::value::Field;

/// Whether any span was ever entered or bridged in the process: until
/// then a record's chain is known empty without a thread-local lookup (a
/// record sink that asks for every record, such as an async sink, pays
/// one load).
static USED: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// The data of the spans entered on this thread, innermost last.
    static CHAIN: RefCell<Vec<Arc<SpanData>>> = const { RefCell::new(Vec::new()) };
    /// The span chain of a `tracing` event the bridge is emitting.
    static BRIDGED: RefCell<Option<Arc<SpanData>>> = const { RefCell::new(None) };
}

/// What a record shows of one span: its name, namespace, level and fields,
/// and the span it was opened in. Shared (an `Arc`) by the span, its
/// children and the records emitted inside it.
#[derive(Clone, PartialEq)]
pub struct SpanData {
    name: &'static str,
    target: &'static str,
    level: Level,
    fields: Vec<(&'static str, OwnedValue)>,
    parent: Option<Arc<SpanData>>,
}

impl SpanData {
    /// A span's data: `fields` copied, `parent` the span it opened in.
    pub fn new(
        name: &'static str,
        target: &'static str,
        level: Level,
        fields: &[Field<'_>],
        parent: Option<Arc<SpanData>>,
    ) -> SpanData {
        SpanData::owned(
            name,
            target,
            level,
            fields.iter().map(|(k, v)| (*k, v.into())).collect(),
            parent,
        )
    }

    pub(crate) fn owned(
        name: &'static str,
        target: &'static str,
        level: Level,
        fields: Vec<(&'static str, OwnedValue)>,
        parent: Option<Arc<SpanData>>,
    ) -> SpanData {
        SpanData {
            name,
            target,
            level,
            fields,
            parent,
        }
    }

    /// The span's name.
    pub fn name(&self) -> &'static str {
        self.name
    }
    /// The span's namespace.
    pub fn target(&self) -> &'static str {
        self.target
    }
    /// The span's level.
    pub fn level(&self) -> Level {
        self.level
    }
    /// The span's own fields (not its parents'), in site order.
    pub fn fields(&self) -> &[(&'static str, OwnedValue)] {
        &self.fields
    }
    /// The span this one was opened in.
    pub fn parent(&self) -> Option<&SpanData> {
        self.parent.as_deref()
    }
    #[cfg(feature = "tracing")]
    pub(crate) fn parent_arc(&self) -> Option<&Arc<SpanData>> {
        self.parent.as_ref()
    }
    /// Sets `key` (`tracing`'s `record` on a bridged span): replaces the
    /// field of that name, or adds it.
    #[cfg(feature = "tracing")]
    pub(crate) fn set_field(&mut self, key: &'static str, value: OwnedValue) {
        match self.fields.iter_mut().find(|(k, _)| *k == key) {
            Some(f) => f.1 = value,
            None => self.fields.push((key, value)),
        }
    }
    /// The chain from the outermost span down to this one.
    pub fn chain(&self) -> Vec<&SpanData> {
        let mut chain = Vec::new();
        let mut at = Some(self);
        while let Some(s) = at {
            chain.push(s);
            at = s.parent();
        }
        chain.reverse();
        chain
    }
}

/// Makes `data` the innermost entered span of this thread.
pub(crate) fn enter(data: &Arc<SpanData>) {
    USED.store(true, Ordering::Relaxed);
    let _ = CHAIN.try_with(|c| {
        if let Ok(mut c) = c.try_borrow_mut() {
            c.push(data.clone());
        }
    });
}

/// Leaves `data`: normally the innermost; a guard dropped out of order
/// removes its span wherever it is (its last entry, as a span may be
/// entered twice).
pub(crate) fn exit(data: &Arc<SpanData>) {
    let _ = CHAIN.try_with(|c| {
        if let Ok(mut c) = c.try_borrow_mut() {
            if let Some(at) = c.iter().rposition(|d| Arc::ptr_eq(d, data)) {
                c.remove(at);
            }
        }
    });
}

/// The innermost span entered on this thread (a new span's parent).
pub(crate) fn entered() -> Option<Arc<SpanData>> {
    CHAIN
        .try_with(|c| c.try_borrow().ok().and_then(|c| c.last().cloned()))
        .ok()
        .flatten()
}

/// Whether any span was ever entered (or bridged) in this process: until
/// then no record is in one.
#[inline]
pub(crate) fn in_use() -> bool {
    USED.load(Ordering::Relaxed)
}

/// The data of the innermost span a record emitted now belongs to: the
/// bridged event's chain while the bridge emits one, else the span entered
/// on this thread.
#[inline]
pub(crate) fn current_data() -> Option<Arc<SpanData>> {
    if !in_use() {
        return None;
    }
    lookup()
}

/// [`current_data`] once spans are in use.
fn lookup() -> Option<Arc<SpanData>> {
    let bridged = BRIDGED.try_with(|b| b.try_borrow().ok().and_then(|b| b.clone()));
    bridged.ok().flatten().or_else(entered)
}

/// Runs `f` (the bridge emitting a `tracing` event) with `chain` as the
/// span chain of the records it emits.
#[cfg(feature = "tracing")]
#[inline]
pub(crate) fn with_bridged<R>(chain: Option<Arc<SpanData>>, f: impl FnOnce() -> R) -> R {
    if chain.is_none() {
        return f();
    }
    with_chain(chain, f)
}

/// [`with_bridged`] with a chain.
#[cfg(feature = "tracing")]
#[inline(never)]
fn with_chain<R>(chain: Option<Arc<SpanData>>, f: impl FnOnce() -> R) -> R {
    USED.store(true, Ordering::Relaxed);
    let before = BRIDGED.try_with(|b| b.replace(chain)).ok().flatten();
    let out = f();
    let _ = BRIDGED.try_with(|b| *b.borrow_mut() = before);
    out
}

/// Two spans for tests: `outer{b=1}` and, inside it, `inner` with
/// `fields`; both returned, outer first.
#[cfg(test)]
pub(crate) fn test_chain(fields: &[Field<'_>]) -> (Arc<SpanData>, Arc<SpanData>) {
    let outer = Arc::new(SpanData::new(
        "outer",
        "app",
        Level::Info,
        &[("b", crate::record::value::Value::U64(1))],
        None,
    ));
    let inner = SpanData::new("inner", "app", Level::Info, fields, Some(outer.clone()));
    (outer, Arc::new(inner))
}
