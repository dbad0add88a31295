//! The word codec of the async queue: how a record is copied into a
//! thread's ring as 64-bit words on the caller, and rebuilt from them on
//! the writer. Most of the async sink's unsafe code is here: the words
//! carry `&'static` pointers (metadata, keys, static texts, the site's
//! message format) and pointers to heap blocks (long texts, records too
//! large for a ring) that the writer takes back exactly once.
//!
//! # Layout
//! A record is a header word, the metadata pointer, the time, the decoder
//! pointer (or the message's first word), optionally the thread number and
//! the thread's name, then the message's items and the fields (key pointer
//! and length, then the value item) up to the record's length.

use std::sync::Arc;

use crate::record::level::Level;
use crate::record::metadata::Metadata;
use crate::record::raw::{MessageFormat, RawArg, RawFloat, RawMessage};
use crate::record::span_data::SpanData;
use crate::record::value::{Field, Value};
use crate::record::Record;

/// Longer strings go to the heap; the ring keeps a pointer.
pub(super) const MAX_INLINE: usize = 256;

// Header word: length in words (bits 0..32), level (32..40), message
// arguments (40..56), flags (56..63; bit 63 stays clear so a header never
// reads as the ring's wrap marker). The fields are not counted: they run
// to the end of the record, so any number of them fits.
pub(super) const RAW: u64 = 1 << 56;
const THREAD: u64 = 1 << 57;
/// A record too large for the ring, in a heap block: word 1 points at the
/// block, word 2 is its time, word 3 its length in words.
pub(super) const BIG: u64 = 1 << 58;
pub(super) const BIG_LEN: u64 = 4;
/// The thread's name follows the fixed words, as a text item (only for a
/// wrapped sink, which may print it; the line formats use the number).
const NAME: u64 = 1 << 59;

// Item tags (low byte of an item's first word; texts keep their length in
// bits 8..40). Tags 0..=16 are the `RawArg` kinds in declaration order.
const T_STATIC: u64 = 17;
const T_HEAP: u64 = 18;
pub(super) const T_DISPLAY: u64 = 19;
pub(super) const T_DEBUG: u64 = 20;
const T_HEAP_DISPLAY: u64 = 21;
const T_HEAP_DEBUG: u64 = 22;
/// Heap bytes of a text of `len` bytes (a long one leaves the ring).
#[inline]
pub(super) fn text_heap(len: usize) -> usize {
    if len > MAX_INLINE {
        len
    } else {
        0
    }
}

#[inline]
pub(super) fn header(
    len: usize,
    record: &Record<'_>,
    nargs: usize,
    flags: u64,
    thread: Option<u64>,
    name: Option<&str>,
) -> u64 {
    len as u64
        | u64::from(record.level().as_u8()) << 32
        | (nargs as u64 & 0xffff) << 40
        | flags
        | if thread.is_some() { THREAD } else { 0 }
        | if name.is_some() { NAME } else { 0 }
}

/// Words of the thread's name item, if it is carried.
#[inline]
pub(super) fn name_len(name: Option<&str>) -> usize {
    name.map_or(0, |n| text_words(n.len()))
}

/// Writes the fixed words (and the thread's name, if carried); returns
/// where the items start (word 3 is the decoder, written by the caller, or
/// the message's first word).
#[inline]
pub(super) fn start(
    w: &mut [u64],
    head: u64,
    meta: &'static Metadata,
    time: u64,
    thread: Option<u64>,
    name: Option<&str>,
) -> usize {
    w[0] = head;
    w[1] = meta as *const Metadata as usize as u64;
    w[2] = time;
    let at = match thread {
        Some(t) => {
            w[4] = t;
            5
        }
        None => 4,
    };
    match name {
        Some(n) => put_text(w, at, 16, n),
        None => at,
    }
}

pub(super) fn text_words(len: usize) -> usize {
    if len > MAX_INLINE {
        2
    } else {
        1 + len.div_ceil(8)
    }
}

#[inline]
pub(super) fn arg_len(a: &RawArg<'_>) -> usize {
    match a {
        RawArg::I128(_) | RawArg::U128(_) => 3,
        RawArg::Str(s) => text_words(s.len()),
        _ if !a.is_owned() => text_words(0),
        _ => 2,
    }
}

/// Heap bytes of one argument.
#[inline]
pub(super) fn arg_heap(a: &RawArg<'_>) -> usize {
    match a {
        RawArg::Str(s) if s.len() > MAX_INLINE => s.len(),
        _ => 0,
    }
}

/// Words and heap bytes of raw arguments, in one pass; `None` when one is
/// borrowed (only the caller can format it: the message is rendered).
#[inline]
pub(super) fn args_size(args: &[RawArg<'_>]) -> Option<(usize, usize)> {
    let (mut words, mut heap) = (0, 0);
    for a in args {
        match a {
            RawArg::I128(_) | RawArg::U128(_) => words += 3,
            RawArg::Str(s) => {
                words += text_words(s.len());
                heap += arg_heap(a);
            }
            _ if a.is_owned() => words += 2,
            _ => return None,
        }
    }
    Some((words, heap))
}

/// Words (key and value) and heap bytes of fields that are all typed, in
/// one pass; `None` when one is `Display`/`Debug` and must be rendered.
#[inline]
pub(super) fn typed_fields_size(fields: &[Field<'_>]) -> Option<(usize, usize)> {
    let mut size = (0, 0);
    for (_, v) in fields {
        let a = value_arg(v)?;
        size = (size.0 + 2 + arg_len(&a), size.1 + arg_heap(&a));
    }
    Some(size)
}

/// A field value as a raw argument, if typed.
#[inline]
pub(super) fn value_arg<'a>(v: &Value<'a>) -> Option<RawArg<'a>> {
    Some(match *v {
        Value::I64(n) => RawArg::I64(n),
        Value::U64(n) => RawArg::U64(n),
        Value::I128(n) => RawArg::I128(n),
        Value::U128(n) => RawArg::U128(n),
        Value::F64(n) => RawArg::F64(RawFloat::new(n)),
        Value::Bool(b) => RawArg::Bool(b),
        Value::Char(c) => RawArg::Char(c),
        Value::Str(s) => RawArg::Str(s),
        Value::Display(_) | Value::Debug(_) => return None,
    })
}

/// One argument: scalars in line (the common case, kept small enough to
/// inline into the encoder's loop), wide numbers and texts out of line.
#[inline(always)]
pub(super) fn put_arg(w: &mut [u64], at: usize, a: &RawArg<'_>) -> usize {
    match scalar(a) {
        Some((tag, word)) => {
            w[at] = tag;
            w[at + 1] = word;
            at + 2
        }
        None => put_arg_item(w, at, a),
    }
}

/// A one-word scalar argument as its tag and word; `None` for any other
/// kind.
#[inline(always)]
fn scalar(a: &RawArg<'_>) -> Option<(u64, u64)> {
    Some(match *a {
        RawArg::I8(n) => (0, n as u64),
        RawArg::I16(n) => (1, n as u64),
        RawArg::I32(n) => (2, n as u64),
        RawArg::I64(n) => (3, n as u64),
        RawArg::Isize(n) => (4, n as u64),
        RawArg::U8(n) => (6, u64::from(n)),
        RawArg::U16(n) => (7, u64::from(n)),
        RawArg::U32(n) => (8, u64::from(n)),
        RawArg::U64(n) => (9, n),
        RawArg::Usize(n) => (10, n as u64),
        RawArg::F32(n) => (12, u64::from(n.get().to_bits())),
        RawArg::F64(n) => (13, n.get().to_bits()),
        RawArg::Bool(b) => (14, u64::from(b)),
        RawArg::Char(c) => (15, u64::from(c)),
        _ => return None,
    })
}

/// The first four words of a record without thread, name, fields or
/// extras (`start`'s, then the message format), `len` words long.
#[inline(always)]
pub(super) fn plain_head(
    len: usize,
    record: &Record<'_>,
    raw: &RawMessage<'_>,
    time: u64,
) -> [u64; 4] {
    [
        header(len, record, raw.args().len(), RAW, None, None),
        record.metadata() as *const Metadata as usize as u64,
        time,
        raw.format() as *const MessageFormat as usize as u64,
    ]
}

/// The whole record of the common shape (see `RingQueue::try_push_plain`):
/// the fixed words, the message format and each argument's two words, into
/// `w` of exactly `4 + 2 * args.len()` words. False (`w` partly written) if
/// an argument is not a one-word scalar.
#[inline(always)]
pub(super) fn put_scalars(w: &mut [u64], fixed: [u64; 4], args: &[RawArg<'_>]) -> bool {
    debug_assert_eq!(w.len(), 4 + 2 * args.len());
    let (head, rest) = w.split_at_mut(4);
    head.copy_from_slice(&fixed);
    for (pair, a) in rest.chunks_exact_mut(2).zip(args) {
        let Some((tag, word)) = scalar(a) else {
            return false;
        };
        pair[0] = tag;
        pair[1] = word;
    }
    true
}

/// [`put_arg`] for what takes more than one word.
#[inline(never)]
fn put_arg_item(w: &mut [u64], at: usize, a: &RawArg<'_>) -> usize {
    let (tag, n) = match *a {
        RawArg::I128(n) => (5, n as u128),
        RawArg::U128(n) => (11, n),
        RawArg::Str(s) => return put_text(w, at, 16, s),
        // Never pushed: a message with a borrowed argument is rendered.
        _ => return put_text(w, at, 16, ""),
    };
    w[at..at + 3].copy_from_slice(&[tag, (n >> 64) as u64, n as u64]);
    at + 3
}

/// A text item: inline (tag, bytes) or, when long, moved to the heap.
pub(super) fn put_text(w: &mut [u64], at: usize, tag: u64, s: &str) -> usize {
    if s.len() > MAX_INLINE {
        let heap_tag = match tag {
            16 => T_HEAP,
            T_DISPLAY => T_HEAP_DISPLAY,
            _ => T_HEAP_DEBUG,
        };
        let boxed: Box<str> = s.into();
        w[at] = heap_tag | (s.len() as u64) << 8;
        w[at + 1] = Box::into_raw(boxed) as *mut u8 as usize as u64;
        return at + 2;
    }
    w[at] = tag | (s.len() as u64) << 8;
    let words = s.len().div_ceil(8);
    let dst = &mut w[at + 1..at + 1 + words];
    if let Some(last) = dst.last_mut() {
        *last = 0;
    }
    // SAFETY: `dst` holds at least `s.len()` bytes; u64 has no invalid bytes.
    unsafe {
        std::ptr::copy_nonoverlapping(s.as_ptr(), dst.as_mut_ptr() as *mut u8, s.len());
    }
    at + 1 + words
}

#[inline]
pub(super) fn put_key(w: &mut [u64], at: usize, key: &'static str) -> usize {
    w[at] = key.as_ptr() as usize as u64;
    w[at + 1] = key.len() as u64;
    at + 2
}

/// The fields' words: none for most records, so that test is in line.
#[inline(always)]
fn put_fields(w: &mut [u64], at: usize, fields: &[Field<'_>]) -> usize {
    if fields.is_empty() {
        return at;
    }
    put_some_fields(w, at, fields)
}

#[inline(never)]
fn put_some_fields(w: &mut [u64], mut at: usize, fields: &[Field<'_>]) -> usize {
    for (k, v) in fields {
        at = put_key(w, at, k);
        if let Some(a) = value_arg(v) {
            at = put_arg(w, at, &a);
        }
    }
    at
}

/// Writes a record's words into a slice of exactly its length: a closure,
/// or [`Typed`], whose `put` is always in line.
pub(super) trait Encode {
    fn put(&self, w: &mut [u64]);
}

impl<F: Fn(&mut [u64])> Encode for F {
    #[inline]
    fn put(&self, w: &mut [u64]) {
        self(w)
    }
}

/// A record whose message and fields are all typed, ready to be copied
/// into its words as they are (nothing rendered).
pub(super) struct Typed<'r, 'a> {
    pub(super) head: u64,
    pub(super) time: u64,
    pub(super) thread: Option<u64>,
    pub(super) name: Option<&'r str>,
    pub(super) record: &'r Record<'a>,
    pub(super) raw: &'r RawMessage<'a>,
    pub(super) extras: &'r Extras,
}

impl Encode for Typed<'_, '_> {
    #[inline(always)]
    fn put(&self, w: &mut [u64]) {
        let mut at = start(
            w,
            self.head,
            self.record.metadata(),
            self.time,
            self.thread,
            self.name,
        );
        w[3] = self.raw.format() as *const MessageFormat as usize as u64;
        for a in self.raw.args() {
            at = put_arg(w, at, a);
        }
        let at = put_fields(w, at, self.record.fields());
        self.extras.put(w, at);
    }
}

/// The keys of the items after a record's fields that are not fields,
/// told apart by address (no field's key is these `static`s).
static SPAN_KEY: &str = "\0elide.span\0";
static SCOPE_KEY: &str = "\0elide.scope\0";

fn is_key(key: &str, mark: &'static str) -> bool {
    std::ptr::eq(key.as_ptr(), mark.as_ptr()) && key.len() == mark.len()
}

/// What a record carries besides its fields: its span chain (an `Arc` the
/// writer takes back: the chain is shared, not copied) and, for a wrapped
/// sink (an OTLP exporter), the scope it was emitted in, read on the
/// caller's thread since the writer has no scopes.
pub(super) struct Extras {
    pub(super) span: Option<Arc<SpanData>>,
    pub(super) scope: Option<(u64, u64)>,
}

impl Extras {
    /// Its words.
    #[inline]
    pub(super) fn len(&self) -> usize {
        self.span
            .as_ref()
            .map_or(0, |_| 2 + arg_len(&RawArg::U64(0)))
            + self.scope.map_or(0, |_| 2 + arg_len(&RawArg::U128(0)))
    }

    /// Writes it at `at` (the encoder runs once, when the record is
    /// published: one reference of the chain goes to the ring).
    #[inline(always)]
    pub(super) fn put(&self, w: &mut [u64], at: usize) -> usize {
        // Most records carry neither: two tests in line.
        if self.span.is_none() && self.scope.is_none() {
            return at;
        }
        self.put_some(w, at)
    }

    #[inline(never)]
    fn put_some(&self, w: &mut [u64], mut at: usize) -> usize {
        if let Some(span) = &self.span {
            at = put_key(w, at, SPAN_KEY);
            let p = Arc::into_raw(span.clone()) as usize as u64;
            at = put_arg(w, at, &RawArg::U64(p));
        }
        if let Some((scope, trace)) = self.scope {
            at = put_key(w, at, SCOPE_KEY);
            at = put_arg(
                w,
                at,
                &RawArg::U128(u128::from(trace) << 64 | u128::from(scope)),
            );
        }
        at
    }
}

/// The message of a rendered record.
pub(super) enum Item {
    Static(&'static str),
    /// Rendered text, `text[a..b]`.
    Text(usize, usize),
}

impl Item {
    pub(super) fn len(&self) -> usize {
        match *self {
            Item::Static(_) => 2,
            Item::Text(a, b) => text_words(b - a),
        }
    }
    pub(super) fn put(&self, w: &mut [u64], at: usize, text: &str) -> usize {
        match *self {
            Item::Static(s) => {
                w[at] = T_STATIC | (s.len() as u64) << 8;
                w[at + 1] = s.as_ptr() as usize as u64;
                at + 2
            }
            Item::Text(a, b) => put_text(w, at, T_DISPLAY, &text[a..b]),
        }
    }
}

/// The writer's reusable lists for rebuilding records.
#[derive(Default)]
pub(super) struct Scratch {
    args: Vec<RawArg<'static>>,
    fields: Vec<Field<'static>>,
}

/// Rebuilds the record `push` encoded in `w` and hands it to `sink` (if
/// any: without, it is only read, to free its long texts). Returns the
/// heap bytes freed (long texts, and the block of a record too large for
/// its ring), which the caller gives back to the byte budget.
///
/// # Safety
/// `w` must be a whole record as encoded by this module's `put_*`
/// functions (or a big record's stub), decoded only once: its heap
/// pointers are taken back here.
pub(super) unsafe fn decode(
    w: &[u64],
    ring_thread: u64,
    scratch: &mut Scratch,
    sink: Option<&mut dyn FnMut(&Record<'_>)>,
) -> usize {
    let head = w[0];
    if head & BIG != 0 {
        let len = w[3] as usize;
        // SAFETY: `push_big` leaked this block of `len` words and the
        // ring holds the only pointer to it.
        let block: Box<[u64]> = unsafe {
            Box::from_raw(std::ptr::slice_from_raw_parts_mut(
                w[1] as usize as *mut u64,
                len,
            ))
        };
        // SAFETY: the block holds a record `push` encoded, decoded once.
        return len * 8 + unsafe { decode(&block, ring_thread, scratch, sink) };
    }
    let level = Level::ALL
        .get(((head >> 32) as u8).wrapping_sub(1) as usize)
        .copied()
        .unwrap_or(Level::Info);
    let nargs = ((head >> 40) & 0xffff) as usize;
    let end = (head & 0xffff_ffff) as usize;
    // SAFETY: written from a `&'static Metadata` by `start`.
    let meta: &'static Metadata = unsafe { &*(w[1] as usize as *const Metadata) };
    let (thread, mut at) = match head & THREAD {
        0 => (ring_thread, 4),
        _ => (w[4], 5),
    };
    let mut owned: Vec<Box<str>> = Vec::new();
    let name = match head & NAME {
        0 => None,
        _ => {
            let (a, next) = read_item(w, at, &mut owned);
            at = next;
            match a {
                RawArg::Str(s) => Some(s),
                _ => None,
            }
        }
    };
    let mut args: Vec<RawArg<'_>> = relifetime(std::mem::take(&mut scratch.args));
    let decoder = if head & RAW != 0 {
        for _ in 0..nargs {
            let (a, next) = read_item(w, at, &mut owned);
            args.push(a);
            at = next;
        }
        // SAFETY: written from a `&'static MessageFormat` by `push`.
        Some(unsafe { &*(w[3] as usize as *const MessageFormat) })
    } else {
        let (a, next) = read_item(w, at, &mut owned);
        args.push(a);
        at = next;
        None
    };
    // Each field's key, item tag and item.
    let mut items = Vec::new();
    let mut span: Option<Arc<SpanData>> = None;
    let mut scope = None;
    while at < end {
        // SAFETY: written from a `&'static str` by `put_fields`.
        let key: &'static str = unsafe {
            std::str::from_utf8_unchecked(std::slice::from_raw_parts(
                w[at] as usize as *const u8,
                w[at + 1] as usize,
            ))
        };
        let tag = w[at + 2] & 0xff;
        let (a, next) = read_item(w, at + 2, &mut owned);
        at = next;
        match a {
            RawArg::U64(p) if is_key(key, SPAN_KEY) => {
                // SAFETY: `Extras::put` wrote it from `Arc::into_raw`, once
                // per record, and each record is decoded once (also when
                // it is only freed), so the reference is taken back once.
                span = Some(unsafe { Arc::from_raw(p as usize as *const SpanData) });
                continue;
            }
            RawArg::U128(x) if is_key(key, SCOPE_KEY) => {
                scope = Some((x as u64, (x >> 64) as u64));
                continue;
            }
            _ => {}
        }
        items.push((key, tag, a));
    }
    let mut fields: Vec<Field<'_>> = relifetime(std::mem::take(&mut scratch.fields));
    // Rendered texts first (the fields borrow them).
    let rendered: Vec<Verbatim<'_>> = items
        .iter()
        .filter(|(_, t, _)| matches!(*t, T_DISPLAY | T_DEBUG | T_HEAP_DISPLAY | T_HEAP_DEBUG))
        .map(|(_, _, a)| match a {
            RawArg::Str(s) => Verbatim(s),
            _ => Verbatim(""),
        })
        .collect();
    let mut next_rendered = rendered.iter();
    for (key, tag, a) in &items {
        let value = match *tag {
            T_DISPLAY | T_HEAP_DISPLAY => {
                Value::Display(next_rendered.next().unwrap_or(&Verbatim("")))
            }
            T_DEBUG | T_HEAP_DEBUG => Value::Debug(next_rendered.next().unwrap_or(&Verbatim(""))),
            _ => arg_value(a),
        };
        fields.push((key, value));
    }
    // The raw view goes along, so the line writer formats a data
    // format's pieces directly.
    let raw = decoder.map(|f| RawMessage::new(f, &args));
    if let Some(sink) = sink {
        let mut write = |m: std::fmt::Arguments<'_>| {
            sink(
                &Record::new(meta, level, m, &fields)
                    .with_time_ns(w[2])
                    .with_thread(thread)
                    .with_thread_name_opt(name)
                    .with_raw(raw)
                    .with_span(span.clone())
                    .with_scope_if(scope),
            )
        };
        match decoder {
            Some(format) => format.with_arguments(&args, &mut write),
            None => match args.first() {
                Some(RawArg::Str(s)) => write(format_args!("{s}")),
                _ => write(format_args!("")),
            },
        }
    }
    scratch.fields = relifetime(fields);
    scratch.args = relifetime(args);
    owned.iter().map(|text| text.len()).sum()
}

/// Reads the item at `at`; returns it and where the next one starts.
fn read_item<'r>(w: &'r [u64], at: usize, owned: &mut Vec<Box<str>>) -> (RawArg<'r>, usize) {
    let tag = w[at] & 0xff;
    let x = w.get(at + 1).copied().unwrap_or(0);
    let wide = || (u128::from(w[at + 1]) << 64) | u128::from(w[at + 2]);
    let arg = match tag {
        0 => RawArg::I8(x as i8),
        1 => RawArg::I16(x as i16),
        2 => RawArg::I32(x as i32),
        3 => RawArg::I64(x as i64),
        4 => RawArg::Isize(x as isize),
        5 => return (RawArg::I128(wide() as i128), at + 3),
        6 => RawArg::U8(x as u8),
        7 => RawArg::U16(x as u16),
        8 => RawArg::U32(x as u32),
        9 => RawArg::U64(x),
        10 => RawArg::Usize(x as usize),
        11 => return (RawArg::U128(wide()), at + 3),
        12 => RawArg::F32(RawFloat::new(f32::from_bits(x as u32))),
        13 => RawArg::F64(RawFloat::new(f64::from_bits(x))),
        14 => RawArg::Bool(x != 0),
        15 => RawArg::Char(char::from_u32(x as u32).unwrap_or('\u{fffd}')),
        _ => return read_text(w, at, tag, owned),
    };
    (arg, at + 2)
}

fn read_text<'r>(
    w: &'r [u64],
    at: usize,
    tag: u64,
    owned: &mut Vec<Box<str>>,
) -> (RawArg<'r>, usize) {
    let len = ((w[at] >> 8) & 0xffff_ffff) as usize;
    match tag {
        T_STATIC => {
            // SAFETY: written from a `&'static str` by `Item::put`.
            let s: &'static str = unsafe {
                std::str::from_utf8_unchecked(std::slice::from_raw_parts(
                    w[at + 1] as usize as *const u8,
                    len,
                ))
            };
            (RawArg::Str(s), at + 2)
        }
        T_HEAP | T_HEAP_DISPLAY | T_HEAP_DEBUG => {
            // SAFETY: `put_text` leaked this `Box<str>` of `len` bytes and
            // the ring holds the only pointer to it.
            let boxed: Box<str> = unsafe {
                Box::from_raw(
                    std::ptr::slice_from_raw_parts_mut(w[at + 1] as usize as *mut u8, len)
                        as *mut str,
                )
            };
            owned.push(boxed);
            let s: &str = owned.last().map_or("", |b| b);
            // SAFETY: the box lives in `owned` until the record is
            // formatted, and a box's contents never move.
            let s: &'r str = unsafe { &*(s as *const str) };
            (RawArg::Str(s), at + 2)
        }
        _ => {
            let words = len.div_ceil(8);
            let bytes = &w[at + 1..at + 1 + words];
            // SAFETY: `put_text` copied the bytes of a `str` here.
            let s = unsafe {
                std::str::from_utf8_unchecked(std::slice::from_raw_parts(
                    bytes.as_ptr() as *const u8,
                    len,
                ))
            };
            (RawArg::Str(s), at + 1 + words)
        }
    }
}

/// A field's raw argument back as the value it was.
fn arg_value<'a>(a: &RawArg<'a>) -> Value<'a> {
    match *a {
        RawArg::I64(n) => Value::I64(n),
        RawArg::U64(n) => Value::U64(n),
        RawArg::I128(n) => Value::I128(n),
        RawArg::U128(n) => Value::U128(n),
        RawArg::F64(n) => Value::F64(n.get()),
        RawArg::Bool(b) => Value::Bool(b),
        RawArg::Char(c) => Value::Char(c),
        RawArg::Str(s) => Value::Str(s),
        // Field values are only ever encoded from the kinds above.
        _ => Value::Str(""),
    }
}

/// Already rendered text that displays (and debug-prints) as itself.
struct Verbatim<'a>(&'a str);

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

/// Empties a list and lets it hold items of another lifetime, keeping its
/// allocation (the collect runs in place: same size and alignment).
fn relifetime<'b, T: Relifetime<'b>>(mut v: Vec<T>) -> Vec<T::As> {
    v.clear();
    v.into_iter().map(|_| unreachable!("emptied")).collect()
}

/// The same type at another lifetime.
trait Relifetime<'b> {
    type As;
}
impl<'b> Relifetime<'b> for Field<'_> {
    type As = Field<'b>;
}
impl<'b> Relifetime<'b> for RawArg<'_> {
    type As = RawArg<'b>;
}
