//! The record handed to sinks, built only on a site's cold path.
//!
//! Statics owned here: the thread-number counter and each thread's number
//! (inside [`thread_number`]).
//!
//! This folder is the data layer: what a record is made of and carries
//! (`level`, `metadata`, `value`/`owned_value`, the `message` and its
//! `raw` arguments with `decimal`, the span chain in `span_data` with
//! `trace_ids`, the thread's `scope_stack` and the `scope_names` it
//! reports). It calls nothing above it but `contain`.

pub(crate) mod decimal;
pub(crate) mod level;
pub(crate) mod message;
pub(crate) mod metadata;
pub(crate) mod owned_value;
pub(crate) mod raw;
pub(crate) mod scope_names;
pub(crate) mod scope_stack;
pub(crate) mod span_data;
#[cfg(any(feature = "json", feature = "otlp"))]
pub(crate) mod trace_ids;
pub(crate) mod value;

use std::cell::{Cell, OnceCell};
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::record::level::Level;
use crate::record::message::Message;
use crate::record::metadata::{Kind, Metadata};
use crate::record::raw::RawMessage;
use crate::record::span_data::SpanData;
use crate::record::value::{Field, Value};

/// One emitted event: the site's static metadata, the level, the message and
/// the structured fields. Time and thread are looked up lazily, the first
/// time a sink asks, so a sink that needs neither pays for neither.
pub struct Record<'a> {
    meta: &'static Metadata,
    level: Level,
    /// The message: `fmt::Arguments`, or a data format's pieces and typed
    /// arguments (see [`Message`]).
    message: Message<'a>,
    fields: &'a [Field<'a>],
    time: OnceCell<SystemTime>,
    /// The time read from the cheap clock by an asynchronous sink, in Unix
    /// nanoseconds (0: not read): `time` follows it if asked later.
    time_ns: Cell<u64>,
    /// The innermost span the record was emitted in: read from the
    /// emitting thread on first ask, or fixed for a rebuilt record.
    span: OnceCell<Option<Arc<SpanData>>>,
    /// What was fixed for a record rebuilt away from its caller's thread;
    /// `None` (one store) for a record on its caller's thread.
    origin: Option<Origin<'a>>,
}

/// The emitting thread and scope of a record rebuilt on another thread.
#[derive(Clone, Copy, Default)]
struct Origin<'a> {
    /// The emitting thread's number; 0 means "the current thread".
    thread: u64,
    /// The emitting thread's name.
    thread_name: Option<&'a str>,
    /// The scope the record was emitted in, (scope id, trace id), if
    /// fixed; unfixed, the current thread's innermost scope (see
    /// [`scope_ids`](Record::scope_ids)).
    scope: Option<Option<(u64, u64)>>,
}

impl<'a> Record<'a> {
    /// Builds a record. The macros call this on the cold path; tests and
    /// custom front-ends may call it too.
    #[inline]
    pub fn new(
        meta: &'static Metadata,
        level: Level,
        args: fmt::Arguments<'a>,
        fields: &'a [Field<'a>],
    ) -> Record<'a> {
        Record::of_message(meta, level, Message::from(args), fields)
    }

    /// [`new`](Record::new) with a message in any of its forms.
    #[inline]
    pub(crate) fn of_message(
        meta: &'static Metadata,
        level: Level,
        message: Message<'a>,
        fields: &'a [Field<'a>],
    ) -> Record<'a> {
        Record {
            meta,
            level,
            message,
            fields,
            time: OnceCell::new(),
            time_ns: Cell::new(0),
            span: OnceCell::new(),
            origin: None,
        }
    }

    /// Fixes the span chain (its innermost span) of a record rebuilt away
    /// from its site, or of one from another span system (the `tracing`
    /// bridge).
    pub fn with_span(self, span: Option<Arc<SpanData>>) -> Record<'a> {
        let _ = self.span.set(span);
        self
    }

    /// The innermost span the record was emitted in (walk
    /// [`SpanData::parent`] or call [`SpanData::chain`] for the rest): the
    /// span entered on the emitting thread, or the one fixed with
    /// [`with_span`](Record::with_span). A record rebuilt on another thread
    /// without one has none.
    pub fn span(&self) -> Option<&SpanData> {
        self.span_arc().map(|s| &**s)
    }

    /// The chain, owned, without fixing it: for a sink that asks of every
    /// record (an async sink's capture), where a record out of any span
    /// costs one load.
    #[inline]
    pub(crate) fn span_owned(&self) -> Option<Arc<SpanData>> {
        match self.span.get() {
            Some(fixed) => fixed.clone(),
            None if self.thread_override() == 0 => crate::record::span_data::current_data(),
            None => None,
        }
    }

    /// Whether the record has no span chain and cannot get one: one load
    /// while no span was ever entered (a chain may still turn out empty
    /// when this says false).
    #[inline]
    pub(crate) fn out_of_spans(&self) -> bool {
        match self.span.get() {
            Some(fixed) => fixed.is_none(),
            None => self.thread_override() != 0 || !crate::record::span_data::in_use(),
        }
    }

    #[inline]
    pub(crate) fn span_arc(&self) -> Option<&Arc<SpanData>> {
        // Out of any span (the common case): one load, nothing stored.
        if self.out_of_spans() {
            return None;
        }
        self.span
            .get_or_init(crate::record::span_data::current_data)
            .as_ref()
    }

    /// Attaches the message's raw view: the same text as
    /// [`args`](Record::args), as typed arguments and the site's message format, so
    /// an asynchronous sink can copy them instead of formatting them on the
    /// caller. The macros call this; `None` leaves the record as it was.
    #[inline]
    pub(crate) fn with_raw(mut self, raw: Option<RawMessage<'a>>) -> Record<'a> {
        self.message = self.message.with_raw(raw);
        self
    }
    /// The message's raw view, if the site captured every argument by
    /// value (a borrowed argument can only be formatted on the caller).
    #[inline]
    pub(crate) fn raw(&self) -> Option<&RawMessage<'a>> {
        self.message.raw().filter(|r| r.is_owned())
    }

    /// Appends the message to `out`: the same text as writing
    /// [`args`](Record::args), reserving its length up front and, for a
    /// site whose format is data, without going through `fmt::Arguments`.
    ///
    /// ```
    /// use elide::{Kind, Level, Metadata, Record};
    /// static META: Metadata =
    ///     Metadata::new(Kind::Log, Level::Info, "app", "app", file!(), line!(), "");
    /// let record = Record::new(&META, Level::Info, format_args!("task {} done", 7), &[]);
    /// let mut text = String::new();
    /// record.write_message(&mut text);
    /// assert_eq!(text, "task 7 done");
    /// ```
    pub fn write_message(&self, out: &mut String) {
        // The arguments' `Debug`/`Display` run in here: a panic is theirs.
        crate::contain::formatting_values(|| {
            self.message.write_to(out, |s, out| out.push_str(s), true)
        })
    }

    /// Fixes the record's time: for a record rebuilt away from its site
    /// (an async writer formatting what a caller captured).
    pub fn with_time(self, time: SystemTime) -> Record<'a> {
        let _ = self.time.set(time);
        self
    }
    /// [`with_time`](Record::with_time) for a time in Unix nanoseconds
    /// (0: the epoch), kept as it is: a line writer reads it without a
    /// round trip through `SystemTime`.
    pub(crate) fn with_time_ns(self, ns: u64) -> Record<'a> {
        if ns == 0 {
            let _ = self.time.set(UNIX_EPOCH);
        }
        self.time_ns.set(ns);
        self
    }
    /// Fixes the emitting thread's number (see [`thread_number`]), for a
    /// record rebuilt on another thread.
    pub fn with_thread(mut self, thread: u64) -> Record<'a> {
        self.origin_mut().thread = thread;
        self
    }
    /// Fixes the emitting thread's name, for a record rebuilt on another
    /// thread (with [`with_thread`](Record::with_thread); ignored without it).
    pub fn with_thread_name(self, name: &'a str) -> Record<'a> {
        self.with_thread_name_opt(Some(name))
    }
    pub(crate) fn with_thread_name_opt(mut self, name: Option<&'a str>) -> Record<'a> {
        self.origin_mut().thread_name = name;
        self
    }
    /// Fixes the scope the record was emitted in, (scope id, trace id) or
    /// none, for a record rebuilt on another thread.
    /// [`with_scope`](Record::with_scope) when `ids` is some; else the
    /// record is left as it is.
    pub(crate) fn with_scope_if(self, ids: Option<(u64, u64)>) -> Record<'a> {
        match ids {
            Some(_) => self.with_scope(ids),
            None => self,
        }
    }

    pub(crate) fn with_scope(mut self, ids: Option<(u64, u64)>) -> Record<'a> {
        self.origin_mut().scope = Some(ids);
        self
    }

    fn origin_mut(&mut self) -> &mut Origin<'a> {
        self.origin.get_or_insert_with(Origin::default)
    }

    /// The origin of a record rebuilt for another thread (one given a
    /// thread number); `None` on its caller's thread.
    fn moved(&self) -> Option<Origin<'a>> {
        self.origin.filter(|o| o.thread != 0)
    }
    /// The innermost timed scope open where the record was emitted, as
    /// (scope id, trace id): the one fixed with `with_scope`, else, for a
    /// record on its caller's thread, that thread's current scope (none
    /// for a record rebuilt elsewhere without it).
    pub(crate) fn scope_ids(&self) -> Option<(u64, u64)> {
        let origin = self.origin.unwrap_or_default();
        match (origin.scope, origin.thread) {
            (Some(fixed), _) => fixed,
            (None, 0) => crate::record::scope_stack::current(),
            (None, _) => None,
        }
    }
    /// The thread number fixed with [`with_thread`](Record::with_thread),
    /// 0 if none.
    pub(crate) fn thread_override(&self) -> u64 {
        self.moved().map_or(0, |o| o.thread)
    }
    /// The emitting thread's number: the one fixed with
    /// [`with_thread`](Record::with_thread), else the current thread's.
    pub fn thread_id(&self) -> u64 {
        match self.thread_override() {
            0 => thread_number(),
            n => n,
        }
    }

    /// The site's static metadata.
    pub fn metadata(&self) -> &'static Metadata {
        self.meta
    }
    /// The record's level.
    pub fn level(&self) -> Level {
        self.level
    }
    /// Log, check failure or telemetry event.
    pub fn kind(&self) -> Kind {
        self.meta.kind()
    }
    /// The site's namespace.
    pub fn target(&self) -> &'static str {
        self.meta.target()
    }
    /// The message, still unformatted: `{}` of it is the text the site's
    /// `format_args!` gives ([`Message::with_args`] for the
    /// `fmt::Arguments`, [`Message::as_str`] for a message without
    /// arguments).
    pub fn args(&self) -> &Message<'a> {
        &self.message
    }
    /// The structured fields, in the order written at the site.
    pub fn fields(&self) -> &'a [Field<'a>] {
        self.fields
    }
    /// The first field called `name`.
    pub fn field(&self, name: &str) -> Option<Value<'a>> {
        self.fields
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| *v)
    }
    /// Wall-clock time of the record, read on first call and then fixed.
    pub fn time(&self) -> SystemTime {
        *self.time.get_or_init(|| match self.time_ns.get() {
            0 => SystemTime::now(),
            ns => UNIX_EPOCH + Duration::from_nanos(ns),
        })
    }
    /// The record's time as its distance from the Unix epoch (`Err`: before
    /// it), read as [`time`](Record::time) reads it.
    #[inline]
    pub(crate) fn since_epoch(&self) -> Result<Duration, Duration> {
        match (self.time.get(), self.time_ns.get()) {
            (None, ns) if ns != 0 => Ok(Duration::from_nanos(ns)),
            _ => self
                .time()
                .duration_since(UNIX_EPOCH)
                .map_err(|e| e.duration()),
        }
    }
    /// The record's time as nanoseconds since the Unix epoch (0 before it):
    /// the time already fixed if some sink asked, else the cheap clock's
    /// reading (`now`, passed in: the clock lives a layer up), which is then
    /// fixed, so every sink of the record agrees.
    #[inline]
    pub(crate) fn time_ns_or(&self, now: impl FnOnce() -> u64) -> u64 {
        match self.time.get() {
            Some(t) => t
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64),
            None => match self.time_ns.get() {
                0 => {
                    let ns = now().max(1);
                    self.time_ns.set(ns);
                    ns
                }
                ns => ns,
            },
        }
    }
    /// The emitting thread (the caller's thread: records are built there;
    /// for a record rebuilt elsewhere, the number and name it was given).
    pub fn thread(&self) -> ThreadInfo {
        match self.moved() {
            Some(o) => ThreadInfo {
                id: o.thread,
                name: o.thread_name.map(str::to_owned),
            },
            None => ThreadInfo::current(),
        }
    }
    /// Calls `f` with the emitting thread's name (`None` if it has none),
    /// without allocating.
    pub(crate) fn with_thread_name_str<R>(&self, f: impl FnOnce(Option<&str>) -> R) -> R {
        match self.moved() {
            Some(o) => f(o.thread_name),
            None => f(std::thread::current().name()),
        }
    }
    /// Writes the emitting thread's label: its name, or its number if it
    /// has none. Allocation-free, for sinks that print it on every line.
    #[cfg(any(feature = "json", feature = "prof"))]
    pub(crate) fn write_thread_label(&self, out: &mut impl fmt::Write) {
        let _ = self.with_thread_name_str(|name| match name {
            Some(name) => out.write_str(name),
            None => write!(out, "{}", self.thread_id()),
        });
    }
}

impl fmt::Debug for Record<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Record")
            .field("level", &self.level)
            .field("target", &self.meta.target())
            .field("message", &self.message)
            .field("fields", &self.fields)
            .finish()
    }
}

/// A small, stable number for the current thread (1 for the first thread that
/// asks, then 2, 3, ...), and its name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadInfo {
    /// Process-unique thread number, assigned on first use.
    pub id: u64,
    /// The thread's name, if it has one.
    pub name: Option<String>,
}

impl ThreadInfo {
    /// The calling thread's info.
    pub fn current() -> ThreadInfo {
        ThreadInfo {
            id: thread_number(),
            name: std::thread::current().name().map(str::to_owned),
        }
    }
}

/// The calling thread's process-unique number.
pub fn thread_number() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    thread_local! {
        static ID: Cell<u64> = const { Cell::new(0) };
    }
    ID.with(|id| match id.get() {
        0 => {
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            id.set(n);
            n
        }
        n => n,
    })
}

/// A telemetry event (`task.start`) with `fields`, rebuilt at `since_epoch`
/// on thread 4, for the tests of the sinks that write events.
#[cfg(all(test, any(feature = "json", feature = "prof")))]
pub(crate) fn test_event<'a>(fields: &'a [Field<'a>], since_epoch: Duration) -> Record<'a> {
    let meta = &crate::record::metadata::TEST_EVENT;
    Record::new(meta, Level::Info, format_args!(""), fields)
        .with_time(UNIX_EPOCH + since_epoch)
        .with_thread(4)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    use crate::record::metadata::TEST_LOG as META;

    #[test]
    fn the_time_one_sink_fixes_is_the_time_every_sink_reads() {
        let r = Record::new(&META, Level::Info, format_args!("x"), &[]);
        let ns = 1_700_000_000_123_456_789;
        assert_eq!(r.time_ns_or(|| ns), ns);
        assert_eq!(r.time_ns_or(|| 5), ns, "fixed by the first reading");
        assert_eq!(r.time(), UNIX_EPOCH + Duration::from_nanos(ns));
    }

    #[test]
    fn a_time_read_first_as_system_time_is_the_one_in_nanoseconds() {
        let r = Record::new(&META, Level::Info, format_args!("x"), &[]);
        let t = r.time();
        let ns = t.duration_since(UNIX_EPOCH).unwrap().as_nanos() as u64;
        assert_eq!(r.time_ns_or(|| 5), ns);
    }

    /// A record rebuilt from its nanoseconds (the async writer's way)
    /// reads the same time through every accessor; so does one fixed as a
    /// `SystemTime`, also before 1970, and a reading of 0 is the epoch.
    #[test]
    fn every_accessor_reads_one_time() {
        let new = || Record::new(&META, Level::Info, format_args!("x"), &[]);
        let ns = 1_700_000_000_123_456_789;
        let rebuilt = new().with_time_ns(ns);
        assert_eq!(rebuilt.since_epoch(), Ok(Duration::from_nanos(ns)));
        assert_eq!(rebuilt.time(), UNIX_EPOCH + Duration::from_nanos(ns));
        assert_eq!(rebuilt.time_ns_or(|| 5), ns);
        let epoch = new().with_time_ns(0);
        assert_eq!(epoch.since_epoch(), Ok(Duration::ZERO));
        assert_eq!(epoch.time(), UNIX_EPOCH);
        let before = new().with_time(UNIX_EPOCH - Duration::from_millis(2_250));
        assert_eq!(before.since_epoch(), Err(Duration::from_millis(2_250)));
        let live = new();
        let d = live.since_epoch().expect("after 1970");
        assert_eq!(live.time(), UNIX_EPOCH + d, "fixed by the first reading");
    }

    #[test]
    fn a_record_debugs_as_its_level_target_message_and_fields() {
        let fields: [Field<'_>; 1] = [("n", Value::U64(3))];
        let text = format!(
            "{:?}",
            Record::new(&META, Level::Warn, format_args!("hello {}", 1), &fields)
        );
        for part in ["Record", "level: Warn", "target: \"t\"", "hello 1", "\"n\""] {
            assert!(text.contains(part), "{part} in {text}");
        }
    }

    #[test]
    fn each_thread_has_its_own_stable_number() {
        let here = thread_number();
        assert_eq!(thread_number(), here, "stable");
        assert_ne!(here, 0);
        let there = std::thread::spawn(thread_number).join().unwrap();
        assert_ne!(there, here);
        assert_eq!(ThreadInfo::current().id, here);
    }

    #[test]
    fn a_thread_number_given_overrides_the_current_one() {
        let r = Record::new(&META, Level::Info, format_args!("x"), &[]).with_thread(77);
        assert_eq!((r.thread_override(), r.thread_id()), (77, 77));
        let r = Record::new(&META, Level::Info, format_args!("x"), &[]);
        assert_eq!(r.thread_override(), 0, "none given");
        assert_eq!(r.thread_id(), thread_number());
    }

    /// A record rebuilt for another thread has the thread and name it was
    /// given and no span of the thread that reads it; a name or a scope
    /// given alone leaves the thread the current one.
    #[test]
    fn a_rebuilt_record_keeps_only_what_it_was_given() {
        let new = || Record::new(&META, Level::Info, format_args!("x"), &[]);
        let here = std::thread::current().name().map(str::to_owned);
        let named = new().with_thread_name("w1");
        assert_eq!(
            named.thread(),
            ThreadInfo::current(),
            "a name alone is ignored"
        );
        assert_eq!(named.with_thread_name_str(|n| n.map(str::to_owned)), here);
        let moved = new().with_thread(7).with_thread_name("w1");
        let w1 = Some("w1".to_owned());
        assert_eq!(
            moved.thread(),
            ThreadInfo {
                id: 7,
                name: w1.clone()
            }
        );
        assert_eq!(moved.with_thread_name_str(|n| n.map(str::to_owned)), w1);
        let scoped = new().with_scope(Some((5, 1)));
        assert_eq!(
            (scoped.scope_ids(), scoped.thread_id()),
            (Some((5, 1)), thread_number())
        );

        let (outer, _) = crate::record::span_data::test_chain(&[]);
        crate::record::span_data::enter(&outer);
        let (in_span, elsewhere) = (new(), new().with_thread(7));
        let spans = [in_span.span_owned(), elsewhere.span_owned()];
        let names = [
            in_span.span().map(SpanData::name),
            elsewhere.span().map(SpanData::name),
        ];
        crate::record::span_data::exit(&outer);
        assert!(spans[0].as_ref().is_some_and(|s| Arc::ptr_eq(s, &outer)));
        assert!(spans[1].is_none(), "not the reading thread's span");
        assert_eq!(names, [Some("outer"), None]);
    }
}
