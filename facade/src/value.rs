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

impl fmt::Display for Value<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Value::I64(v) => fmt::Display::fmt(&v, f),
            Value::U64(v) => fmt::Display::fmt(&v, f),
            Value::I128(v) => fmt::Display::fmt(&v, f),
            Value::U128(v) => fmt::Display::fmt(&v, f),
            Value::F64(v) => fmt::Display::fmt(&v, f),
            Value::Bool(v) => fmt::Display::fmt(&v, f),
            Value::Char(v) => fmt::Display::fmt(&v, f),
            Value::Str(v) => fmt::Display::fmt(v, f),
            Value::Display(v) => fmt::Display::fmt(v, f),
            Value::Debug(v) => fmt::Debug::fmt(v, f),
        }
    }
}

impl fmt::Debug for Value<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Value::Str(v) => fmt::Debug::fmt(v, f),
            Value::Char(v) => fmt::Debug::fmt(&v, f),
            _ => fmt::Display::fmt(self, f),
        }
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

macro_rules! to_value_as {
    ($variant:ident($as:ty): $($t:ty),*) => {$(
        impl ToValue for $t {
            #[inline]
            fn to_value(&self) -> Value<'_> {
                Value::$variant(*self as $as)
            }
        }
    )*};
}
to_value_as!(I64(i64): i8, i16, i32, i64, isize);
to_value_as!(U64(u64): u8, u16, u32, u64, usize);
to_value_as!(F64(f64): f32, f64);
to_value_as!(I128(i128): i128);
to_value_as!(U128(u128): u128);

impl ToValue for bool {
    fn to_value(&self) -> Value<'_> {
        Value::Bool(*self)
    }
}
impl ToValue for char {
    fn to_value(&self) -> Value<'_> {
        Value::Char(*self)
    }
}
impl ToValue for str {
    fn to_value(&self) -> Value<'_> {
        Value::Str(self)
    }
}
impl ToValue for String {
    fn to_value(&self) -> Value<'_> {
        Value::Str(self)
    }
}
impl ToValue for Cow<'_, str> {
    fn to_value(&self) -> Value<'_> {
        Value::Str(self)
    }
}
impl<T: ToValue + ?Sized> ToValue for &T {
    fn to_value(&self) -> Value<'_> {
        (**self).to_value()
    }
}
impl<T: ToValue + ?Sized> ToValue for &mut T {
    fn to_value(&self) -> Value<'_> {
        (**self).to_value()
    }
}
impl<T: ToValue + ?Sized> ToValue for Box<T> {
    fn to_value(&self) -> Value<'_> {
        (**self).to_value()
    }
}
impl<T: ToValue + ?Sized> ToValue for Arc<T> {
    fn to_value(&self) -> Value<'_> {
        (**self).to_value()
    }
}
impl<T: ToValue + ?Sized> ToValue for Rc<T> {
    fn to_value(&self) -> Value<'_> {
        (**self).to_value()
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

/// Calls `f` with the present fields of `kv`, in order (the absent `None`s
/// left out). Not public API; the macros call it on the cold path.
#[doc(hidden)]
#[inline(always)]
pub fn with_fields<'a, R, const N: usize>(
    kv: [(&'static str, Option<Value<'a>>); N],
    f: impl FnOnce(&[Field<'a>]) -> R,
) -> R {
    let mut out: [Field<'a>; N] = [("", Value::Bool(false)); N];
    let mut n = 0;
    for (k, v) in kv {
        if let Some(v) = v {
            out[n] = (k, v);
            n += 1;
        }
    }
    f(&out[..n])
}
