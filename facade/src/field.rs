//! tracing's field helpers, for code written against `tracing::field`:
//! [`debug`], [`display`] and [`Empty`].
//!
//! ```
//! use elide::field;
//! let (path, n) = (std::path::Path::new("/tmp/x"), 3);
//! elide::info!(path = field::display(path.display()), n = field::debug(n), "read");
//! // `Empty` declares a field with no value: the field is left out.
//! elide::info!(later = field::Empty, "nothing recorded");
//! ```

use std::fmt;

use crate::record::value::{FieldValue, ToValue, Value};

/// A value recorded through `Debug`, as `key = ?value` does.
#[derive(Clone, Copy)]
pub struct DebugValue<T>(T);

/// A value recorded through `Display`, as `key = %value` does.
#[derive(Clone, Copy)]
pub struct DisplayValue<T>(T);

/// `key = field::debug(v)`: the same as `key = ?v`.
pub fn debug<T: fmt::Debug>(value: T) -> DebugValue<T> {
    DebugValue(value)
}

/// `key = field::display(v)`: the same as `key = %v`.
pub fn display<T: fmt::Display>(value: T) -> DisplayValue<T> {
    DisplayValue(value)
}

/// A field declared without a value. tracing records it later with
/// `span.record(..)`; elide's fields are fixed when the record is made, so
/// an `Empty` field is left out, like a `None`.
#[derive(Clone, Copy, Debug)]
pub struct Empty;

impl<T: fmt::Debug> ToValue for DebugValue<T> {
    fn to_value(&self) -> Value<'_> {
        Value::Debug(&self.0)
    }
}

impl<T: fmt::Display> ToValue for DisplayValue<T> {
    fn to_value(&self) -> Value<'_> {
        Value::Display(&self.0)
    }
}

impl<T: fmt::Debug> fmt::Debug for DebugValue<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl<T: fmt::Display> fmt::Debug for DisplayValue<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl FieldValue for Empty {
    #[inline(always)]
    fn field_value(&self) -> Option<Value<'_>> {
        None
    }
}
