//! The `tracing` ecosystem and elide, both ways (cargo feature `tracing`).
//!
//! **Inbound**: [`layer()`] is a `tracing-subscriber` [`Layer`] that turns
//! `tracing` events into elide records. An event's target is its namespace
//! (the same cascade and `set_level_for` rules as a macro site); its fields
//! stay typed where tracing gives types; its `message` is the record's
//! message (tracing's own value, formatted only by a sink that writes it; a
//! number named `message` stays a field); the spans it is in are the
//! record's span chain (as for elide's own spans: see [`Record::span`]);
//! its file, line and module path are kept. `register_callsite` answers
//! `always`/`never` for events and spans alike from elide's configuration
//! of the target (a span in a namespace that is off is never built), the
//! level hint is elide's most verbose level, and every elide change
//! rebuilds tracing's interest cache: a disabled `tracing::debug!` costs
//! what it costs under any subscriber. While a test capture
//! ([`testing`](crate::testing)) is active, the hint is `Trace` and a
//! callsite elide turns off is asked about per event (`sometimes`), so the
//! capturing thread sees every level. [`install`] installs a registry with
//! this layer as the global subscriber. An event that tracing-log's
//! `LogTracer` made of a `log` record (target `log`, fields `log.target`,
//! `log.file` ..) becomes that record again: its own target and place.
//!
//! **Outbound**: [`TracingSink`] re-emits elide records as `tracing` events
//! in the current dispatcher, so an elide-instrumented library shows up in a
//! `tracing_subscriber::fmt` application.
//!
//! ```
//! # #[cfg(feature = "tracing")] {
//! let _ = elide::bridge::tracing::install();
//! # }
//! ```

mod forward_sites;

use std::cell::Cell;
use std::fmt;
use std::sync::Arc;

use tracing_core::field::{self as tfield, Field as TField, Visit as TVisit};
use tracing_core::span::{Attributes, Id, Record as SpanRecord};
use tracing_core::{callsite, dispatcher, Event, Interest, Metadata, Subscriber};
use tracing_subscriber::layer::{Context, Layer};
use tracing_subscriber::registry::LookupSpan;

use crate::bridge::{forward, forwarding, intern_text, placed, site_at, Place, Recent, SitePlace};
use crate::dispatch::interest;
use crate::dispatch::{self, Route};
use crate::record::level::Level;
use crate::record::metadata::Metadata as ElideMetadata;
use crate::record::span_data::SpanData;
use crate::record::value::{Field, Value};
use crate::record::Record;
use crate::runtime;
use crate::runtime::route::of_target_site as enabled_at;
use crate::runtime::runtime_site::{emit_at, site};
use crate::sink::{OwnedValue, Sink};

use forward_sites::forward_site;
pub use forward_sites::{forward_callsites, MAX_FORWARD_CALLSITES, OVERFLOW_FIELDS};

/// A `tracing-subscriber` layer that routes `tracing` events into elide
/// (see the [module docs](self)).
#[derive(Debug)]
pub struct ElideLayer {
    _private: (),
}

/// The inbound layer. Reads the environment if that was not done yet.
///
/// In a program that also calls [`elide::init`](crate::init), call that
/// first, then install the registry with
/// `tracing::subscriber::set_global_default(..)` or `.try_init()` (ignoring
/// its error), not `.init()`: with tracing-subscriber's default
/// `tracing-log` feature, `init()` sets the subscriber, then panics because
/// it cannot make tracing-log's `LogTracer` the `log` logger (`log` takes
/// one logger, once, and elide stays it: it keeps `log` records'
/// key-values, which `LogTracer` drops). The other order (the registry's
/// `init()`, then `elide::init()`) does not panic: `LogTracer` stays the
/// `log` logger, and the layer turns its events back into the `log` records
/// they were, without their key-values.
///
/// ```
/// # #[cfg(feature = "tracing")] {
/// use tracing_subscriber::layer::SubscriberExt;
/// let subscriber = tracing_subscriber::registry().with(elide::bridge::tracing::layer());
/// tracing_core::dispatcher::with_default(&subscriber.into(), || {
///     tracing::info!(port = 80, "now an elide record");
/// });
/// # }
/// ```
pub fn layer() -> ElideLayer {
    runtime::ensure();
    // tracing asks every layer again about every callsite after a change.
    interest::on_change(|_| callsite::rebuild_interest_cache());
    ElideLayer { _private: () }
}

/// Installs a `tracing` registry with [`layer()`] as the global default
/// subscriber, making elide the whole subscriber, as
/// [`bridge::log::install`](crate::bridge::log::install) makes it the
/// `log` logger. Fails if one was set.
pub fn install() -> Result<(), dispatcher::SetGlobalDefaultError> {
    use tracing_subscriber::layer::SubscriberExt;
    let subscriber = tracing_subscriber::registry().with(layer());
    dispatcher::set_global_default(dispatcher::Dispatch::new(subscriber))
}

pub(super) fn from_tracing(l: &tracing_core::Level) -> Level {
    match *l {
        tracing_core::Level::ERROR => Level::Error,
        tracing_core::Level::WARN => Level::Warn,
        tracing_core::Level::INFO => Level::Info,
        tracing_core::Level::DEBUG => Level::Debug,
        _ => Level::Trace,
    }
}

/// tracing's levels, least verbose first (as elide numbers its own).
static TRACING_LEVELS: [tracing_core::Level; 5] = {
    use tracing_core::Level as L;
    [L::ERROR, L::WARN, L::INFO, L::DEBUG, L::TRACE]
};

fn to_tracing(l: Level) -> &'static tracing_core::Level {
    &TRACING_LEVELS[l as usize - 1]
}

/// Collects the fields of an event or span; `message` apart (its text, or
/// with `skip_message` only that there is one).
#[derive(Default)]
struct Capture {
    message: Option<String>,
    skip_message: bool,
    saw_message: bool,
    fields: Vec<(&'static str, OwnedValue)>,
}

impl Capture {
    fn put(&mut self, field: &TField, v: OwnedValue) {
        self.fields.push((field.name(), v));
    }
}

impl TVisit for Capture {
    fn record_i64(&mut self, field: &TField, v: i64) {
        self.put(field, OwnedValue::I64(v))
    }
    fn record_u64(&mut self, field: &TField, v: u64) {
        self.put(field, OwnedValue::U64(v))
    }
    fn record_i128(&mut self, field: &TField, v: i128) {
        self.put(field, OwnedValue::I128(v))
    }
    fn record_u128(&mut self, field: &TField, v: u128) {
        self.put(field, OwnedValue::U128(v))
    }
    fn record_f64(&mut self, field: &TField, v: f64) {
        self.put(field, OwnedValue::F64(v))
    }
    fn record_bool(&mut self, field: &TField, v: bool) {
        self.put(field, OwnedValue::Bool(v))
    }
    fn record_str(&mut self, field: &TField, v: &str) {
        if field.name() == "message" {
            self.saw_message = true;
            if !self.skip_message {
                self.message = Some(v.to_owned());
            }
        } else {
            self.put(field, OwnedValue::Str(v.to_owned()))
        }
    }
    fn record_debug(&mut self, field: &TField, v: &dyn fmt::Debug) {
        if field.name() == "message" {
            self.saw_message = true;
            if !self.skip_message {
                self.message = Some(format!("{v:?}"));
            }
        } else {
            self.put(field, OwnedValue::Debug(format!("{v:?}")))
        }
    }
}

/// Emits an event's record inside the visit of its `message` field, with
/// tracing's own value as the message: a sink formats it if it wants it,
/// and nothing copies it first. Numbers and booleans are fields (as
/// [`Capture`] takes them), never the message.
struct AtMessage<F> {
    emit: F,
    /// Whether the record is still to be emitted (the message is visited
    /// once; a second `message` field is ignored).
    pending: bool,
}

impl<F: FnMut(fmt::Arguments<'_>)> AtMessage<F> {
    fn message(&mut self, field: &TField, message: fmt::Arguments<'_>) {
        if self.pending && field.name() == "message" {
            self.pending = false;
            (self.emit)(message);
        }
    }
}

impl<F: FnMut(fmt::Arguments<'_>)> TVisit for AtMessage<F> {
    fn record_i64(&mut self, _: &TField, _: i64) {}
    fn record_u64(&mut self, _: &TField, _: u64) {}
    fn record_i128(&mut self, _: &TField, _: i128) {}
    fn record_u128(&mut self, _: &TField, _: u128) {}
    fn record_f64(&mut self, _: &TField, _: f64) {}
    fn record_bool(&mut self, _: &TField, _: bool) {}
    fn record_str(&mut self, field: &TField, v: &str) {
        self.message(field, format_args!("{v}"))
    }
    fn record_debug(&mut self, field: &TField, v: &dyn fmt::Debug) {
        self.message(field, format_args!("{v:?}"))
    }
}

/// A span's name and fields, kept in its extensions for the events inside.
struct SpanFields(Arc<SpanData>);

/// The chain of the spans `event` is in, innermost last: each span's data
/// as kept, re-linked where a parent's data changed since the child opened
/// (a `record` on the parent), so every event sees each span's latest
/// fields.
#[inline]
fn chain_of<S>(event: &Event<'_>, ctx: &Context<'_, S>) -> Option<Arc<SpanData>>
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    // An event in the current span while this thread is in none this
    // layer saw entered: no chain, without asking the registry (its
    // lookup of the current span is most of a bridged event's cost).
    if event.is_contextual() && ENTERED.try_with(Cell::get).unwrap_or(1) == 0 {
        return None;
    }
    chain_in_spans(event, ctx)
}

/// [`chain_of`] for an event that may be in spans: walks them from the
/// root.
#[inline(never)]
fn chain_in_spans<S>(event: &Event<'_>, ctx: &Context<'_, S>) -> Option<Arc<SpanData>>
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    let mut chain: Option<Arc<SpanData>> = None;
    for span in ctx.event_scope(event)?.from_root() {
        let ext = span.extensions();
        let Some(SpanFields(data)) = ext.get::<SpanFields>() else {
            continue;
        };
        let linked = match (data.parent_arc(), &chain) {
            (None, None) => true,
            (Some(p), Some(c)) => Arc::ptr_eq(p, c),
            _ => false,
        };
        chain = Some(if linked {
            data.clone()
        } else {
            Arc::new(SpanData::owned(
                data.name(),
                data.target(),
                data.level(),
                data.fields().to_vec(),
                chain.take(),
            ))
        });
    }
    chain
}

impl<S> Layer<S> for ElideLayer
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn register_callsite(&self, meta: &'static Metadata<'static>) -> Interest {
        // Spans and events alike: per namespace and level.
        match enabled_at(site(meta.target()), from_tracing(meta.level())) {
            Some(Route::All) => Interest::always(),
            // While a test capture is active, a capturing thread wants what
            // the configuration turns off: tracing asks `enabled` per event,
            // which answers for the asking thread. The last capture's end
            // rebuilds this cache.
            _ if dispatch::captures_anywhere() => Interest::sometimes(),
            _ => Interest::never(),
        }
    }

    /// As for an event, a span's target is a namespace and its level is
    /// checked there, so a span in a namespace that is off is never built
    /// (as under tracing's own `EnvFilter`); a `tracing::enabled!` hint is
    /// answered the same.
    fn enabled(&self, meta: &Metadata<'_>, _: Context<'_, S>) -> bool {
        enabled_at(site(meta.target()), from_tracing(meta.level())).is_some()
    }

    fn max_level_hint(&self) -> Option<tracing_core::LevelFilter> {
        Some(
            interest::max_level_with_captures()
                .to_level()
                .map(|l| *to_tracing(l))
                .into(),
        )
    }

    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let mut c = Capture::default();
        attrs.record(&mut c);
        if let Some(span) = ctx.span(id) {
            let parent = span
                .parent()
                .and_then(|p| p.extensions().get::<SpanFields>().map(|f| f.0.clone()));
            let meta = span.metadata();
            let data = SpanData::owned(
                meta.name(),
                meta.target(),
                from_tracing(meta.level()),
                c.fields,
                parent,
            );
            span.extensions_mut().insert(SpanFields(Arc::new(data)));
        }
    }

    fn on_record(&self, id: &Id, values: &SpanRecord<'_>, ctx: Context<'_, S>) {
        let mut c = Capture::default();
        values.record(&mut c);
        if let Some(span) = ctx.span(id) {
            // Children opened before keep the old data as parent; events
            // re-link them (see `chain_of`).
            if let Some(f) = span.extensions_mut().get_mut::<SpanFields>() {
                let mut data = (*f.0).clone();
                for (k, v) in c.fields {
                    data.set_field(k, v);
                }
                f.0 = Arc::new(data);
            }
        }
    }

    fn on_enter(&self, _: &Id, _: Context<'_, S>) {
        let _ = ENTERED.try_with(|d| d.set(d.get().saturating_add(1)));
    }

    fn on_exit(&self, _: &Id, _: Context<'_, S>) {
        let _ = ENTERED.try_with(|d| d.set(d.get().saturating_sub(1)));
    }

    fn on_event(&self, event: &Event<'_>, ctx: Context<'_, S>) {
        if forwarding() {
            return;
        }
        let meta = event.metadata();
        if meta.target() == "log" && meta.fields().field("log.target").is_some() {
            return on_log_tracer_event(event, &ctx);
        }
        let level = from_tracing(meta.level());
        let (cs, placed) = event_place(meta);
        let Some(route) = enabled_at(cs, level) else {
            return;
        };
        // An event with a message alone (the common `debug!("..")`) has
        // nothing else to collect: one visit, the one that emits, unless
        // its message is a number (then a field, as `Capture` takes it).
        let only_message = meta.fields().len() == 1 && meta.fields().field("message").is_some();
        if !(only_message && emit_event(event, &ctx, placed, route, level, false)) {
            emit_event(event, &ctx, placed, route, level, true);
        }
    }
}

/// Emits `event`'s record at `meta` (placed) with its fields collected when
/// `collect`, else with none, its message tracing's own value (see
/// [`AtMessage`]). Without `collect`, false when the event had no message to
/// emit at (nothing was emitted: the caller collects).
#[inline(always)]
fn emit_event<S>(
    event: &Event<'_>,
    ctx: &Context<'_, S>,
    meta: &'static ElideMetadata,
    route: Route,
    level: Level,
    collect: bool,
) -> bool
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    // Notes a `message` field but keeps no text of it.
    let mut c = Capture {
        skip_message: true,
        ..Capture::default()
    };
    if collect {
        event.record(&mut c);
    }
    let fields: Vec<Field<'_>> = c.fields.iter().map(|(k, v)| (*k, v.as_value())).collect();
    let target = event.metadata().target();
    let emit = |message: fmt::Arguments<'_>| {
        crate::record::span_data::with_bridged(chain_of(event, ctx), || {
            emit_at(meta, route, target, level, &fields, message)
        })
    };
    if collect && !c.saw_message {
        emit(format_args!(""));
        return true;
    }
    let mut at = AtMessage {
        emit,
        pending: true,
    };
    event.record(&mut at);
    match at {
        AtMessage { pending: false, .. } => true,
        // A message value that did not visit the same way twice: the
        // record still goes out, without its message.
        AtMessage { emit, .. } if collect => {
            emit(format_args!(""));
            true
        }
        _ => false,
    }
}

thread_local! {
    static RECENT: Recent<usize> = const { Recent::new() };
    /// How many spans this thread is in, as the layer saw them entered
    /// and exited (a span entered twice counts twice, as it is exited
    /// twice): while 0, an event has no chain to look up. A layer swapped
    /// in (`reload`) while its thread is inside a span does not see that
    /// enter: events there carry no chain until a span is entered again.
    static ENTERED: Cell<u32> = const { Cell::new(0) };
}

/// The run-time site of an event's target and its metadata placed where
/// the event's macro is: from this thread's recent events by the address
/// of their `'static` metadata, else through the site table and
/// [`placed`].
#[inline]
fn event_place(meta: &'static Metadata<'static>) -> SitePlace {
    let key = meta as *const Metadata<'static> as usize;
    let find = || {
        let place = Place {
            file: meta.file(),
            line: meta.line(),
            module_path: meta.module_path(),
        };
        site_at(meta.target(), place)
    };
    // Each callsite's metadata is a static of about a hundred bytes: the
    // low bits of its address say little.
    RECENT
        .try_with(|r| r.get(key, key >> 6, find))
        .unwrap_or_else(|_| find())
}

/// An event that tracing-log's `LogTracer` made of a `log` record (when
/// the application made `LogTracer` the `log` logger before
/// [`elide::init`](crate::init), as tracing-subscriber's `init()` does with
/// its default `tracing-log` feature) as the `log` record it was: under the
/// record's target (field `log.target`), with its place (fields
/// `log.module_path`, `log.file`, `log.line`), without the key-values
/// `LogTracer` does not carry.
fn on_log_tracer_event<S>(event: &Event<'_>, ctx: &Context<'_, S>)
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    let level = from_tracing(event.metadata().level());
    let mut c = Capture::default();
    event.record(&mut c);
    let (mut target, mut place) = (None, Place::default());
    let text = |v: &OwnedValue| match v {
        OwnedValue::Str(s) => intern_text(s),
        _ => None,
    };
    c.fields.retain(|(k, v)| {
        match *k {
            "log.target" => target = text(v),
            "log.module_path" => place.module_path = text(v),
            "log.file" => place.file = text(v),
            "log.line" => {
                place.line = match v {
                    OwnedValue::U64(n) => u32::try_from(*n).ok(),
                    OwnedValue::I64(n) => u32::try_from(*n).ok(),
                    _ => None,
                }
            }
            _ => return true,
        }
        false
    });
    let Some(target) = target else { return };
    let cs = site(target);
    let Some(route) = enabled_at(cs, level) else {
        return;
    };
    let fields: Vec<Field<'_>> = c.fields.iter().map(|(k, v)| (*k, v.as_value())).collect();
    let message = c.message.as_deref().unwrap_or("");
    crate::record::span_data::with_bridged(chain_of(event, ctx), || {
        emit_at(
            placed(cs.metadata(), place),
            route,
            target,
            level,
            &fields,
            format_args!("{message}"),
        )
    });
}

/// The most fields a record forwarded to `tracing` carries (beyond it,
/// fields are left out); tracing's metadata needs a fixed field list.
pub const MAX_FORWARDED_FIELDS: usize = 16;

/// A sink that re-emits elide records as `tracing` events in the current
/// dispatcher (the thread's default, else the global one), so elide sites
/// appear in a `tracing_subscriber::fmt` application. The event's target,
/// level, module path, file and line are the record's; its fields are the
/// record's (typed: integers, floats, booleans, strings; the rest through
/// `Display`/`Debug`) after `message`.
///
/// tracing needs a callsite per field list; the sink keeps one per elide
/// site and level, widened to every name the site's records carried, so
/// records with ever new combinations of names (a `log` record's varying
/// key-values) make at most one callsite per distinct name, never more
/// than [`MAX_FORWARD_CALLSITES`] in all. An event records its own fields
/// only: the callsite's other declared names have no value, which
/// subscribers skip. Past the cap, the names a callsite lacks reach the
/// subscriber as `name=value` text in the field [`OVERFLOW_FIELDS`]
/// ([`forward_callsites`] says how many were made).
///
/// ```
/// # #[cfg(feature = "tracing")] {
/// use std::sync::Arc;
/// // tracing_subscriber::fmt::init();  // the application's subscriber
/// elide::add_sink(Arc::new(elide::bridge::tracing::TracingSink::new()));
/// elide::warn!(uid = 7, "reaches the tracing subscriber");
/// # }
/// ```
#[derive(Debug, Default)]
pub struct TracingSink {
    _private: (),
}

impl TracingSink {
    /// The sink.
    pub fn new() -> TracingSink {
        TracingSink { _private: () }
    }
}

/// An elide value as something `tracing` can record: most are already,
/// the rest in tracing's wrappers.
enum TValue<'a> {
    Is(&'a dyn tfield::Value),
    Display(tfield::DisplayValue<&'a dyn fmt::Display>),
    Debug(tfield::DebugValue<&'a dyn fmt::Debug>),
    Char(tfield::DisplayValue<char>),
}

impl<'a> TValue<'a> {
    fn of(v: &'a Value<'a>) -> TValue<'a> {
        match v {
            Value::I64(n) => TValue::Is(n),
            Value::U64(n) => TValue::Is(n),
            Value::I128(n) => TValue::Is(n),
            Value::U128(n) => TValue::Is(n),
            Value::F64(n) => TValue::Is(n),
            Value::Bool(b) => TValue::Is(b),
            Value::Str(s) => TValue::Is(s),
            Value::Char(c) => TValue::Char(tfield::display(*c)),
            Value::Display(d) => TValue::Display(tfield::display(*d)),
            Value::Debug(d) => TValue::Debug(tfield::debug(*d)),
        }
    }

    fn as_dyn(&self) -> &dyn tfield::Value {
        match self {
            TValue::Is(v) => *v,
            TValue::Display(d) => d,
            TValue::Debug(d) => d,
            TValue::Char(c) => c,
        }
    }
}

impl Sink for TracingSink {
    fn emit(&self, record: &Record<'_>) {
        let fields = &record.fields()[..record.fields().len().min(MAX_FORWARDED_FIELDS)];
        let names: Vec<&'static str> = fields.iter().map(|(k, _)| *k).collect();
        let meta = forward_site(record, &names).meta();
        let set = meta.fields();
        let field = |name| set.field(name).expect("declared by every callsite");
        let args = tfield::display(record.args());
        let target_name = record.target();
        // The fields the callsite does not declare, as `name=value` text.
        let undeclared = fields.iter().filter(|f| set.field(f.0).is_none());
        let undeclared: Vec<String> = undeclared.map(|(k, v)| format!("{k}={v:?}")).collect();
        let overflow_text = tfield::display(undeclared.join(" "));
        // `message`, then each field under its declared name, in the
        // record's order; the undeclared ones (past the callsite cap) as
        // text, and the target if the callsite is the overflow one.
        let mut values = vec![(field("message"), TValue::Is(&args))];
        for (k, v) in fields {
            if let Some(f) = set.field(k) {
                values.push((f, TValue::of(v)));
            }
        }
        if !undeclared.is_empty() {
            values.push((field(OVERFLOW_FIELDS), TValue::Is(&overflow_text)));
        }
        if let Some(t) = set.field("target") {
            if meta.target() != record.target() {
                values.push((t, TValue::Is(&target_name)));
            }
        }
        // A fixed-size list: the slots past the record's values repeat
        // `message` with no value, which tracing skips.
        let mut list = [(&values[0].0, None); MAX_FORWARDED_FIELDS + 3];
        for (slot, (f, v)) in list.iter_mut().zip(&values) {
            *slot = (f, Some(v.as_dyn()));
        }
        forward(|| {
            dispatcher::get_default(|d| {
                if d.enabled(meta) {
                    d.event(&Event::new(meta, &set.value_set(&list)));
                }
            })
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracing_subscriber::layer::SubscriberExt;

    /// What `f` logs through `tracing` under a registry with this layer,
    /// captured (the capture wants every level on this thread, so spans
    /// and events are enabled whatever the configuration).
    fn bridged(f: impl FnOnce()) -> crate::testing::Captured<()> {
        let subscriber = tracing_subscriber::registry().with(layer());
        crate::testing::capture(|| tracing::subscriber::with_default(subscriber, f))
    }

    /// Every level crosses to `tracing` and back unchanged.
    #[test]
    fn levels_cross_both_ways() {
        for l in Level::ALL {
            assert_eq!(from_tracing(to_tracing(l)), l);
            assert_eq!(to_tracing(l).as_str(), l.as_str());
        }
    }

    /// An event's message is its `message` field whatever fields come
    /// before it, strings and `Debug` values included, and it is emitted
    /// once.
    #[test]
    fn the_message_is_the_message_field_among_others() {
        let run = bridged(|| {
            // `message` given as a field, after the others: visited last
            // (a format string's message is visited first).
            tracing::info!(user = "alice", peer = ?(10, 0), message = "login");
        });
        assert_eq!(run.records.len(), 1);
        let r = run.records.assert_logged(Level::Info, "login");
        assert_eq!(r.message, "login");
        assert_eq!(r.field("user"), Some(&OwnedValue::Str("alice".into())));
    }

    /// The layer's count of the spans its thread is in follows every enter
    /// and exit, nested and repeated, back to 0, so events outside every
    /// span skip the registry's lookup again (a count that only grew would
    /// give the same records, slower).
    #[test]
    fn the_count_of_entered_spans_returns_to_zero() {
        let depth = || ENTERED.with(Cell::get);
        let _ = bridged(|| {
            assert_eq!(depth(), 0);
            let outer = tracing::info_span!("outer");
            {
                let _o = outer.enter();
                let _i = tracing::info_span!("inner").entered();
                {
                    let _again = outer.enter();
                    assert_eq!(depth(), 3);
                }
                assert_eq!(depth(), 2);
            }
            assert_eq!(depth(), 0);
        });
    }
}
