//! A record captured on the caller's thread and handed, rebuilt, to the
//! sink an [`AsyncSink`](crate::sink::AsyncSink) wraps, on its writer
//! thread.
//!
//! The caller keeps only what borrows its data or changes with time: the
//! message and `Display`/`Debug` fields are rendered into a text buffer,
//! typed fields are copied, time and thread are read. The writer rebuilds
//! the record from them and hands it to the wrapped sink. Buffers come from a
//! pool the writer refills, so steady state allocates nothing.

use std::fmt::Write;
use std::time::SystemTime;

use crate::metadata::Metadata;
use crate::record::Record;
use crate::value::{Field, Value, Visit};
use crate::Level;

/// Buffers kept out of text larger than this are freed rather than pooled.
const MAX_POOLED_TEXT: usize = 4 * 1024;
/// Field buffers longer than this are freed rather than pooled.
const MAX_POOLED_FIELDS: usize = 64;

/// A field value without borrows: text lives in [`Store::text`]. 128-bit
/// numbers are kept as two halves: 8-byte alignment keeps a slot at 24
/// bytes instead of 32, and every pooled store holds some.
#[derive(Clone, Copy)]
enum Slot {
    I64(i64),
    U64(u64),
    /// An `i128`, as its bits' (high, low) halves.
    I128(u64, u64),
    /// A `u128`, as (high, low) halves.
    U128(u64, u64),
    F64(f64),
    Bool(bool),
    Char(char),
    /// A string field, `text[start..end]`.
    Str(usize, usize),
    /// A rendered `Display` field, `text[start..end]`.
    Display(usize, usize),
    /// A rendered `Debug` field, `text[start..end]`.
    Debug(usize, usize),
}

/// Reusable storage of a captured record.
#[derive(Default)]
pub(crate) struct Store {
    text: String,
    fields: Vec<(&'static str, Slot)>,
}

impl Store {
    /// An empty store sized for a typical record (a short message, two
    /// fields), allocated up front so callers need not.
    pub(crate) fn sized() -> Store {
        Store {
            text: String::with_capacity(64),
            fields: Vec::with_capacity(2),
        }
    }
    /// The heap bytes the store holds.
    pub(crate) fn bytes(&self) -> usize {
        self.text.capacity() + self.fields.capacity() * std::mem::size_of::<(&'static str, Slot)>()
    }
    /// Empties the store for reuse; `None` if it grew too big to keep.
    pub(crate) fn recycle(mut self) -> Option<Store> {
        if self.text.capacity() > MAX_POOLED_TEXT || self.fields.capacity() > MAX_POOLED_FIELDS {
            return None;
        }
        self.text.clear();
        self.fields.clear();
        Some(self)
    }
}

enum Message {
    /// The format string had no arguments.
    Static(&'static str),
    /// `text[..end]`.
    Text(usize),
}

/// What the writer needs to format a record.
pub(crate) struct Captured {
    meta: &'static Metadata,
    level: Level,
    time: SystemTime,
    /// The scope it was emitted in, (scope id, trace id); ids start at 1,
    /// so (0, 0) is none (8 bytes less than an `Option`).
    scope: (u64, u64),
    thread: u64,
    /// Length of the thread's name, kept at the end of the text (0: none).
    thread_name: u32,
    message: Message,
    store: Store,
    /// The span chain, shared with the caller's span.
    span: Option<std::sync::Arc<crate::span_data::SpanData>>,
}

impl Captured {
    /// Captures `record` into `store` (which must be empty); with
    /// `thread_name`, the emitting thread's name too (a wrapped sink may
    /// print it; the built-in line formats only use the number).
    pub(crate) fn capture(record: &Record<'_>, mut store: Store, thread_name: bool) -> Captured {
        let message = match record.args().as_str() {
            Some(s) => Message::Static(s),
            None => {
                record.write_message(&mut store.text);
                Message::Text(store.text.len())
            }
        };
        // The values' `Debug`/`Display` run in here: a panic is theirs.
        crate::contain::formatting_values(|| {
            for &(key, value) in record.fields() {
                let mut capture = Capture {
                    text: &mut store.text,
                    slot: Slot::Bool(false),
                };
                value.visit(&mut capture);
                let slot = capture.slot;
                store.fields.push((key, slot));
            }
        });
        let thread_name = if thread_name {
            record.with_thread_name_str(|name| match name {
                // Longer names are not kept (no thread is named like that).
                Some(name) if u32::try_from(name.len()).is_ok() => {
                    store.text.push_str(name);
                    name.len() as u32
                }
                _ => 0,
            })
        } else {
            0
        };
        Captured {
            meta: record.metadata(),
            level: record.level(),
            time: record.time(),
            // Read here, on the caller's thread: the writer has no scopes.
            scope: record.scope_ids().unwrap_or((0, 0)),
            thread: record.thread_id(),
            thread_name,
            message,
            store,
            span: record.span_owned(),
        }
    }

    /// The heap and inline bytes this record holds while queued (what an
    /// async sink's byte budget counts).
    pub(crate) fn bytes(&self) -> usize {
        std::mem::size_of::<Captured>() + self.store.bytes()
    }

    /// The storage, for reuse, when the record is dropped unwritten.
    pub(crate) fn into_store(self) -> Store {
        self.store
    }

    /// Rebuilds the record (the caller's metadata, level, message, typed
    /// fields, time and thread), hands it to `f`, and gives the storage back.
    pub(crate) fn replay(self, scratch: &mut Scratch, f: impl FnOnce(&Record<'_>)) -> Store {
        let text = self.store.text.as_str();
        let message = match self.message {
            Message::Static(s) => s,
            Message::Text(end) => &text[..end],
        };
        // Rendered fields are passed as `Display`/`Debug` of their text
        // verbatim, which gives the same bytes as the original in every
        // format; `dyn Display` needs a sized referent, hence the list.
        let mut rendered: Vec<Verbatim<'_>> = relifetime(std::mem::take(&mut scratch.rendered));
        rendered.extend(
            self.store
                .fields
                .iter()
                .filter_map(|&(_, slot)| match slot {
                    Slot::Display(a, b) | Slot::Debug(a, b) => Some(Verbatim(&text[a..b])),
                    _ => None,
                }),
        );
        let mut fields: Vec<Field<'_>> = relifetime(std::mem::take(&mut scratch.fields));
        let mut next_rendered = rendered.iter();
        fields.extend(self.store.fields.iter().map(|&(key, slot)| {
            let value = match slot {
                Slot::I64(n) => Value::I64(n),
                Slot::U64(n) => Value::U64(n),
                Slot::I128(hi, lo) => Value::I128(whole(hi, lo) as i128),
                Slot::U128(hi, lo) => Value::U128(whole(hi, lo)),
                Slot::F64(n) => Value::F64(n),
                Slot::Bool(b) => Value::Bool(b),
                Slot::Char(c) => Value::Char(c),
                Slot::Str(a, b) => Value::Str(&text[a..b]),
                Slot::Display(..) => match next_rendered.next() {
                    Some(s) => Value::Display(s),
                    None => Value::Str(""),
                },
                Slot::Debug(..) => match next_rendered.next() {
                    Some(s) => Value::Debug(s),
                    None => Value::Str(""),
                },
            };
            (key, value)
        }));
        f(
            &Record::new(self.meta, self.level, format_args!("{message}"), &fields)
                .with_time(self.time)
                .with_thread(self.thread)
                .with_span(self.span.clone())
                .with_scope((self.scope.0 != 0).then_some(self.scope))
                .with_thread_name_opt(
                    (self.thread_name > 0).then(|| &text[text.len() - self.thread_name as usize..]),
                ),
        );
        scratch.fields = relifetime(fields);
        scratch.rendered = relifetime(rendered);
        self.store
    }
}

/// Turns one field value into a [`Slot`], its text into the store's text.
struct Capture<'a> {
    text: &'a mut String,
    slot: Slot,
}

impl Visit for Capture<'_> {
    fn i64(&mut self, v: i64) {
        self.slot = Slot::I64(v);
    }
    fn u64(&mut self, v: u64) {
        self.slot = Slot::U64(v);
    }
    fn i128(&mut self, v: i128) {
        let (hi, lo) = halves(v as u128);
        self.slot = Slot::I128(hi, lo);
    }
    fn u128(&mut self, v: u128) {
        let (hi, lo) = halves(v);
        self.slot = Slot::U128(hi, lo);
    }
    fn f64(&mut self, v: f64) {
        self.slot = Slot::F64(v);
    }
    fn bool(&mut self, v: bool) {
        self.slot = Slot::Bool(v);
    }
    fn char(&mut self, v: char) {
        self.slot = Slot::Char(v);
    }
    fn str(&mut self, v: &str) {
        let start = self.text.len();
        self.text.push_str(v);
        self.slot = Slot::Str(start, self.text.len());
    }
    fn display(&mut self, v: &dyn std::fmt::Display) {
        let start = self.text.len();
        let _ = write!(self.text, "{v}");
        self.slot = Slot::Display(start, self.text.len());
    }
    fn debug(&mut self, v: &dyn std::fmt::Debug) {
        let start = self.text.len();
        let _ = write!(self.text, "{v:?}");
        self.slot = Slot::Debug(start, self.text.len());
    }
}

fn halves(n: u128) -> (u64, u64) {
    ((n >> 64) as u64, n as u64)
}

fn whole(hi: u64, lo: u64) -> u128 {
    (u128::from(hi) << 64) | u128::from(lo)
}

/// Already rendered text that displays (and debug-prints) as itself.
pub(crate) struct Verbatim<'a>(pub(crate) &'a str);

impl std::fmt::Display for Verbatim<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

impl std::fmt::Debug for Verbatim<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

/// The writer's reusable lists for rebuilding records.
#[derive(Default)]
pub(crate) struct Scratch {
    fields: Vec<Field<'static>>,
    rendered: Vec<Verbatim<'static>>,
}

/// Empties a list and lets it hold items of another lifetime, keeping its
/// allocation (the collect runs in place: same size and alignment).
pub(crate) fn relifetime<'b, T: Relifetime<'b>>(mut v: Vec<T>) -> Vec<T::As> {
    v.clear();
    v.into_iter().map(|_| unreachable!("emptied")).collect()
}

/// The same type at another lifetime.
pub(crate) trait Relifetime<'b> {
    type As;
}
impl<'b> Relifetime<'b> for Field<'_> {
    type As = Field<'b>;
}
impl<'b> Relifetime<'b> for Verbatim<'_> {
    type As = Verbatim<'b>;
}
impl<'b> Relifetime<'b> for crate::raw::RawArg<'_> {
    type As = crate::raw::RawArg<'b>;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sizes the pool and queue memory figures (the sinks guide's byte bound) assume.
    #[test]
    fn sizes_stay_small() {
        assert!(std::mem::size_of::<Slot>() <= 24);
        // 16 of them the scope the record was emitted in (its span's ids
        // for a wrapped OTLP exporter), 8 its span chain.
        assert!(std::mem::size_of::<Captured>() <= 128);
    }

    /// What a queued record counts against an async sink's byte budget
    /// covers the heap bytes it holds: its rendered text and its fields.
    #[test]
    fn a_captured_record_counts_the_bytes_it_holds() {
        let text = "x".repeat(1000);
        let fields: Vec<Field<'_>> = (0..20).map(|_| ("n", Value::U64(7))).collect();
        let captured = Captured::capture(
            &Record::new(
                &crate::metadata::TEST_LOG,
                Level::Info,
                format_args!("{text}"),
                &fields,
            ),
            Store::sized(),
            false,
        );
        let held = 1000 + 20 * std::mem::size_of::<(&str, Slot)>();
        assert!(
            captured.bytes() >= std::mem::size_of::<Captured>() + held,
            "{} bytes counted for {held} held",
            captured.bytes()
        );
    }

    #[test]
    fn wide_numbers_round_trip() {
        for n in [i128::MIN, -1, 0, 1, i128::MAX] {
            let (hi, lo) = halves(n as u128);
            assert_eq!(whole(hi, lo) as i128, n);
        }
        let (hi, lo) = halves(u128::MAX - 5);
        assert_eq!(whole(hi, lo), u128::MAX - 5);
    }
}
