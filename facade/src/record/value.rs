//! Structured key-value fields and their kinds.

use std::borrow::Cow;
use std::fmt;
use std::rc::Rc;
use std::sync::Arc;

/// A borrowed field value, with its kind kept so sinks can write it typed
/// (JSON numbers stay numbers).
///
/// In a macro, `key = expr` converts `expr` with [`ToValue`] (integers,
/// floats, bools, chars, strings); `key = %expr` records it through `Display`
/// and `key = ?expr` through `Debug`.
#[derive(Clone, Copy)]
pub enum Value<'a> {
    /// A signed integer.
    I64(i64),
    /// An unsigned integer.
    U64(u64),
    /// A 128-bit signed integer.
    I128(i128),
    /// A 128-bit unsigned integer.
    U128(u128),
    /// A floating-point number.
    F64(f64),
    /// A boolean.
    Bool(bool),
    /// A character.
    Char(char),
    /// A string.
    Str(&'a str),
    /// Any `Display` value (`key = %expr`).
    Display(&'a dyn fmt::Display),
    /// Any `Debug` value (`key = ?expr`).
    Debug(&'a dyn fmt::Debug),
}

/// Receives a [`Value`] by kind: [`Value::visit`] is the one place that
/// tells the kinds apart, and every writer (text, JSON, the async capture,
/// [`OwnedValue`](crate::sink::OwnedValue)) is a `Visit`.
///
/// Only [`display`](Visit::display) and [`debug`](Visit::debug) are
/// required: every typed method defaults to `display`, so a visitor that
/// only writes text handles every kind, and a kind added later reaches
/// existing visitors as text.
///
/// ```
/// use elide::{Value, Visit};
/// struct Kind(&'static str);
/// impl Visit for Kind {
///     fn u64(&mut self, _: u64) { self.0 = "number" }
///     fn display(&mut self, _: &dyn std::fmt::Display) { self.0 = "text" }
///     fn debug(&mut self, _: &dyn std::fmt::Debug) { self.0 = "text" }
/// }
/// let mut k = Kind("");
/// Value::U64(7).visit(&mut k);
/// assert_eq!(k.0, "number");
/// Value::Bool(true).visit(&mut k);
/// assert_eq!(k.0, "text");
/// ```
pub trait Visit {
    /// A signed integer.
    fn i64(&mut self, v: i64) {
        self.display(&v)
    }
    /// An unsigned integer.
    fn u64(&mut self, v: u64) {
        self.display(&v)
    }
    /// A 128-bit signed integer.
    fn i128(&mut self, v: i128) {
        self.display(&v)
    }
    /// A 128-bit unsigned integer.
    fn u128(&mut self, v: u128) {
        self.display(&v)
    }
    /// A floating-point number.
    fn f64(&mut self, v: f64) {
        self.display(&v)
    }
    /// A boolean.
    fn bool(&mut self, v: bool) {
        self.display(&v)
    }
    /// A character.
    fn char(&mut self, v: char) {
        self.display(&v)
    }
    /// A string.
    fn str(&mut self, v: &str) {
        self.display(&v)
    }
    /// A `Display` value (`key = %expr`), and every typed kind by default.
    fn display(&mut self, v: &dyn fmt::Display);
    /// A `Debug` value (`key = ?expr`).
    fn debug(&mut self, v: &dyn fmt::Debug);
}

impl Value<'_> {
    /// Hands the value to the method of `visitor` for its kind.
    pub fn visit<V: Visit + ?Sized>(&self, visitor: &mut V) {
        match *self {
            Value::I64(v) => visitor.i64(v),
            Value::U64(v) => visitor.u64(v),
            Value::I128(v) => visitor.i128(v),
            Value::U128(v) => visitor.u128(v),
            Value::F64(v) => visitor.f64(v),
            Value::Bool(v) => visitor.bool(v),
            Value::Char(v) => visitor.char(v),
            Value::Str(v) => visitor.str(v),
            Value::Display(v) => visitor.display(v),
            Value::Debug(v) => visitor.debug(v),
        }
    }
}

/// Writes a value to a formatter: `Display` of typed values, `Debug` of
/// `?x` fields; with `quoted`, strings and chars through `Debug` too.
struct Fmt<'a, 'b> {
    f: &'a mut fmt::Formatter<'b>,
    quoted: bool,
    res: fmt::Result,
}

impl Fmt<'_, '_> {
    fn write(value: &Value<'_>, f: &mut fmt::Formatter<'_>, quoted: bool) -> fmt::Result {
        let mut w = Fmt {
            f,
            quoted,
            res: Ok(()),
        };
        value.visit(&mut w);
        w.res
    }

    fn text<T: fmt::Display + fmt::Debug + ?Sized>(&mut self, v: &T) {
        self.res = match self.quoted {
            true => fmt::Debug::fmt(v, self.f),
            false => fmt::Display::fmt(v, self.f),
        };
    }
}

impl Visit for Fmt<'_, '_> {
    fn char(&mut self, v: char) {
        self.text(&v)
    }
    fn str(&mut self, v: &str) {
        self.text(v)
    }
    fn display(&mut self, v: &dyn fmt::Display) {
        self.res = v.fmt(self.f);
    }
    fn debug(&mut self, v: &dyn fmt::Debug) {
        self.res = v.fmt(self.f);
    }
}

impl fmt::Display for Value<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Fmt::write(self, f, false)
    }
}

impl fmt::Debug for Value<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Fmt::write(self, f, true)
    }
}

/// Types that convert to a typed [`Value`] without a sigil in `key = expr`.
///
/// Implement it for your own types to log them without `%` or `?`:
///
/// ```
/// use elide::{ToValue, Value};
/// struct Uid(u64);
/// impl ToValue for Uid {
///     fn to_value(&self) -> Value<'_> { Value::U64(self.0) }
/// }
/// assert!(matches!(Uid(7).to_value(), Value::U64(7)));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a typed field value",
    label = "not an integer, float, bool, char or string",
    note = "record it with `key = %value` (Display) or `key = ?value` (Debug), or implement `elide::ToValue` for it"
)]
pub trait ToValue {
    /// The field value.
    fn to_value(&self) -> Value<'_>;
}

/// Each type's arm: `|v| kind` makes the value from `v: &Self`.
macro_rules! to_value {
    ($($t:ty: |$v:ident| $value:expr),* $(,)?) => {$(
        impl ToValue for $t {
            #[inline]
            fn to_value(&self) -> Value<'_> {
                let $v = self;
                $value
            }
        }
    )*};
    ($kind:ident($as:ty): $($t:ty),*) => {
        to_value!($($t: |v| Value::$kind(*v as $as)),*);
    };
}
to_value!(I64(i64): i8, i16, i32, i64, isize);
to_value!(U64(u64): u8, u16, u32, u64, usize);
to_value!(F64(f64): f32, f64);
to_value!(I128(i128): i128);
to_value!(U128(u128): u128);
to_value!(Bool(bool): bool);
to_value!(Char(char): char);
to_value!(
    str: |v| Value::Str(v),
    String: |v| Value::Str(v),
    Cow<'_, str>: |v| Value::Str(v),
);

/// Pointers to a `ToValue` type are one too.
macro_rules! to_value_through {
    ($($p:ty),*) => {$(
        impl<T: ToValue + ?Sized> ToValue for $p {
            fn to_value(&self) -> Value<'_> {
                (**self).to_value()
            }
        }
    )*};
}
to_value_through!(&T, &mut T, Box<T>, Arc<T>, Rc<T>);

/// An error as a field value (`error = &e as &dyn Error`): its message,
/// then each of its sources after `: `, as `anyhow` and `eyre` show a
/// chain (`reading config: permission denied`).
impl ToValue for &(dyn std::error::Error + 'static) {
    fn to_value(&self) -> Value<'_> {
        Value::Display(ErrorChain::of(self))
    }
}

impl ToValue for &(dyn std::error::Error + Send + Sync + 'static) {
    fn to_value(&self) -> Value<'_> {
        Value::Display(ErrorChain::of(self))
    }
}

/// `Display` of an error and its sources: a transparent wrapper of the
/// field's own `&dyn Error`, so the field borrows it (no allocation, no
/// copy).
#[repr(transparent)]
struct ErrorChain<'e, E: ?Sized>(&'e E);

impl<'e, E: ?Sized> ErrorChain<'e, E> {
    fn of<'r>(e: &'r &'e E) -> &'r ErrorChain<'e, E> {
        // SAFETY: `ErrorChain` is `repr(transparent)` over the reference.
        unsafe { &*(e as *const &'e E as *const ErrorChain<'e, E>) }
    }
}

impl<E: std::error::Error + ?Sized> fmt::Display for ErrorChain<'_, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)?;
        let mut source = self.0.source();
        while let Some(e) = source {
            write!(f, ": {e}")?;
            source = e.source();
        }
        Ok(())
    }
}

/// One named field of a record.
pub type Field<'a> = (&'static str, Value<'a>);

/// How a plain `key = expr` field is recorded: through [`ToValue`], or, for
/// an `Option`, only when it is `Some` (tracing's rule: `None` omits the
/// field). Not public API; the macros call it.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a typed field value",
    label = "not an integer, float, bool, char, string or an `Option` of one",
    note = "record it with `key = %value` (Display) or `key = ?value` (Debug), or implement `elide::ToValue` for it"
)]
pub trait FieldValue {
    /// The value, or `None` to leave the field out.
    fn field_value(&self) -> Option<Value<'_>>;
}

/// A plain `key = expr` field's value, as a site hands it over: one short
/// call per field (the macro writes it at the value's span, so a type
/// without [`FieldValue`] is reported there). Not public API.
#[doc(hidden)]
#[inline(always)]
pub fn field<T: FieldValue + ?Sized>(value: &T) -> Option<Value<'_>> {
    value.field_value()
}

/// A `key = %expr` field's value. Not public API.
#[doc(hidden)]
#[inline(always)]
pub fn display_field<T: fmt::Display>(value: &T) -> Option<Value<'_>> {
    Some(Value::Display(value))
}

/// A `key = ?expr` field's value. Not public API.
#[doc(hidden)]
#[inline(always)]
pub fn debug_field<T: fmt::Debug>(value: &T) -> Option<Value<'_>> {
    Some(Value::Debug(value))
}

// The blanket path: every `ToValue` type is always present, and the
// `Some(..)` folds away once inlined, so plain fields cost what they did.
impl<T: ToValue + ?Sized> FieldValue for T {
    #[inline(always)]
    fn field_value(&self) -> Option<Value<'_>> {
        Some(self.to_value())
    }
}

impl<T: ToValue> FieldValue for Option<T> {
    #[inline(always)]
    fn field_value(&self) -> Option<Value<'_>> {
        self.as_ref().map(ToValue::to_value)
    }
}

impl<T: ToValue> FieldValue for &Option<T> {
    #[inline(always)]
    fn field_value(&self) -> Option<Value<'_>> {
        self.as_ref().map(ToValue::to_value)
    }
}

/// Runs `f` on the present fields of `kv` (the absent `None`s left out),
/// in order. Not public API; the macros call it where a site hands its
/// fields to a callback (a scope's or a span's opening). Not generic: one
/// copy for every site.
#[doc(hidden)]
pub fn with_present_fields(
    kv: &[(&'static str, Option<Value<'_>>)],
    f: &mut dyn FnMut(&[Field<'_>]),
) {
    present_then(kv, f)
}

/// [`with_present_fields`] for the facade's own shared paths, inlined into
/// each (a few copies in all, none per site), so the record is built and
/// dispatched without an indirect call.
#[inline(always)]
pub(crate) fn present_then<R>(
    kv: &[(&'static str, Option<Value<'_>>)],
    f: impl FnOnce(&[Field<'_>]) -> R,
) -> R {
    const ON_STACK: usize = 16;
    if kv.len() > ON_STACK {
        return present_on_heap(kv, f);
    }
    // Uninitialised: a site with two fields writes two slots, not sixteen.
    let mut buf = [const { std::mem::MaybeUninit::<Field<'_>>::uninit() }; ON_STACK];
    let mut n = 0;
    for (k, v) in kv {
        if let Some(v) = v {
            buf[n].write((k, *v));
            n += 1;
        }
    }
    // SAFETY: slots `..n` were written just above (n <= kv.len() <= 16), and
    // `Field` is `Copy`, so nothing is left to drop.
    let present = unsafe { std::slice::from_raw_parts(buf.as_ptr().cast::<Field<'_>>(), n) };
    f(present)
}

#[cold]
fn present_on_heap<R>(
    kv: &[(&'static str, Option<Value<'_>>)],
    f: impl FnOnce(&[Field<'_>]) -> R,
) -> R {
    let all: Vec<Field<'_>> = kv.iter().filter_map(|(k, v)| v.map(|v| (*k, v))).collect();
    f(&all)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn present(kv: &[(&'static str, Option<Value<'_>>)]) -> Vec<String> {
        let mut out = Vec::new();
        with_present_fields(kv, &mut |fields| {
            out = fields.iter().map(|(k, v)| format!("{k}={v}")).collect()
        });
        out
    }

    #[test]
    fn absent_fields_are_left_out_in_order() {
        let kv = [
            ("a", Some(Value::U64(1))),
            ("b", None),
            ("c", Some(Value::Str("x"))),
        ];
        assert_eq!(present(&kv), ["a=1", "c=x"]);
        assert!(present(&[]).is_empty());
        assert!(present(&[("z", None)]).is_empty());
    }

    #[test]
    fn more_fields_than_the_stack_holds_all_arrive() {
        let kv: Vec<(&'static str, Option<Value<'_>>)> = (0..40u64)
            .map(|i| ("k", (i % 3 != 0).then_some(Value::U64(i))))
            .collect();
        let want: Vec<String> = (0..40u64)
            .filter(|i| i % 3 != 0)
            .map(|i| format!("k={i}"))
            .collect();
        assert_eq!(present(&kv), want);
        assert_eq!(present(&kv[..16]).len(), 10, "exactly the stack's size");
    }

    /// A visitor with only the two required methods, as a user writes one.
    struct Text(Vec<String>);
    impl Visit for Text {
        fn display(&mut self, v: &dyn fmt::Display) {
            self.0.push(format!("display {v}"));
        }
        fn debug(&mut self, v: &dyn fmt::Debug) {
            self.0.push(format!("debug {v:?}"));
        }
    }

    fn every_kind() -> [Value<'static>; 10] {
        [
            Value::I64(-3),
            Value::U64(7),
            Value::I128(-(1 << 100)),
            Value::U128(1 << 100),
            Value::F64(0.5),
            Value::Bool(true),
            Value::Char('q'),
            Value::Str("a b"),
            Value::Display(&"shown"),
            Value::Debug(&"dbg"),
        ]
    }

    #[test]
    fn a_visitor_with_only_display_and_debug_gets_every_kind_as_text() {
        let mut t = Text(Vec::new());
        for v in every_kind() {
            v.visit(&mut t);
        }
        assert_eq!(
            t.0,
            [
                "display -3",
                "display 7",
                "display -1267650600228229401496703205376",
                "display 1267650600228229401496703205376",
                "display 0.5",
                "display true",
                "display q",
                "display a b",
                "display shown",
                "debug \"dbg\"",
            ]
        );
    }

    #[test]
    fn display_writes_plain_text_and_debug_quotes_strings_and_chars() {
        let shown: Vec<String> = every_kind().iter().map(|v| v.to_string()).collect();
        assert_eq!(
            shown,
            [
                "-3",
                "7",
                "-1267650600228229401496703205376",
                "1267650600228229401496703205376",
                "0.5",
                "true",
                "q",
                "a b",
                "shown",
                "\"dbg\"",
            ]
        );
        let debugged: Vec<String> = every_kind().iter().map(|v| format!("{v:?}")).collect();
        assert_eq!(debugged[6..8], ["'q'", "\"a b\""]);
        assert_eq!(debugged[..6], shown[..6]);
    }

    #[test]
    fn an_option_field_is_present_only_when_some() {
        fn text(v: Option<Value<'_>>) -> Option<String> {
            v.map(|v| v.to_string())
        }
        let some: Option<u16> = Some(8080);
        let none: Option<u16> = None;
        assert_eq!(text(some.field_value()), Some("8080".into()));
        assert_eq!(text(FieldValue::field_value(&&some)), Some("8080".into()));
        assert_eq!(text(none.field_value()), None);
        assert_eq!(text(FieldValue::field_value(&&none)), None);
        assert_eq!(text(5u8.field_value()), Some("5".into()));
    }
}
