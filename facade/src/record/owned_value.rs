//! An owned copy of a field value: what outlives the record it came from
//! (a memory sink's records, a span's fields, a bridged span's fields).

use crate::record::value::{Value, Visit};

/// An owned copy of a field value.
#[derive(Clone, Debug, PartialEq)]
pub enum OwnedValue {
    /// Signed integer.
    I64(i64),
    /// Unsigned integer.
    U64(u64),
    /// 128-bit signed integer.
    I128(i128),
    /// 128-bit unsigned integer.
    U128(u128),
    /// Float.
    F64(f64),
    /// Boolean.
    Bool(bool),
    /// Character.
    Char(char),
    /// String.
    Str(String),
    /// A `Display` value, rendered.
    Display(String),
    /// A `Debug` value, rendered.
    Debug(String),
}

impl From<&Value<'_>> for OwnedValue {
    fn from(v: &Value<'_>) -> Self {
        let mut owned = Owned(OwnedValue::Bool(false));
        v.visit(&mut owned);
        owned.0
    }
}

impl OwnedValue {
    /// The value borrowed back as a [`Value`] of the same kind, for
    /// emitting a kept value again; rendered `Display` and `Debug` text
    /// prints exactly as it was rendered.
    ///
    /// ```
    /// use elide::{sink::OwnedValue, Value};
    /// let kept = OwnedValue::from(&Value::Debug(&Some(3)));
    /// assert_eq!(format!("{:?}", kept.as_value()), "Some(3)");
    /// assert!(matches!(kept.as_value(), Value::Debug(_)));
    /// ```
    pub fn as_value(&self) -> Value<'_> {
        match self {
            OwnedValue::I64(v) => Value::I64(*v),
            OwnedValue::U64(v) => Value::U64(*v),
            OwnedValue::I128(v) => Value::I128(*v),
            OwnedValue::U128(v) => Value::U128(*v),
            OwnedValue::F64(v) => Value::F64(*v),
            OwnedValue::Bool(v) => Value::Bool(*v),
            OwnedValue::Char(v) => Value::Char(*v),
            OwnedValue::Str(v) => Value::Str(v),
            OwnedValue::Display(v) => Value::Display(v),
            OwnedValue::Debug(v) => Value::Debug(Rendered::new(v)),
        }
    }
}

/// Text a `Debug` impl rendered: its `Debug` writes the text as it is
/// (a `str`'s own `Debug` would quote and escape it again).
#[repr(transparent)]
struct Rendered(String);

impl Rendered {
    fn new(s: &String) -> &Rendered {
        // SAFETY: `Rendered` is `repr(transparent)` over `String`, so a
        // `&String` is a valid `&Rendered` with the same lifetime.
        unsafe { &*(s as *const String as *const Rendered) }
    }
}

impl std::fmt::Debug for Rendered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The visitor behind `From<&Value>`.
struct Owned(OwnedValue);

/// The typed kinds, copied as they are.
macro_rules! owned_copy {
    ($($m:ident => $k:ident),*) => {
        $(fn $m(&mut self, v: $m) {
            self.0 = OwnedValue::$k(v);
        })*
    };
}

impl Visit for Owned {
    owned_copy!(i64 => I64, u64 => U64, i128 => I128, u128 => U128, f64 => F64, bool => Bool, char => Char);
    fn str(&mut self, v: &str) {
        self.0 = OwnedValue::Str(v.to_owned());
    }
    fn display(&mut self, v: &dyn std::fmt::Display) {
        self.0 = OwnedValue::Display(v.to_string());
    }
    fn debug(&mut self, v: &dyn std::fmt::Debug) {
        self.0 = OwnedValue::Debug(format!("{v:?}"));
    }
}

impl std::fmt::Display for OwnedValue {
    /// As the value it was copied from displays.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            // The rendered text, padded as a string is (`as_value` keeps
            // it as `Debug` text, written as it is).
            OwnedValue::Debug(s) => s.fmt(f),
            v => v.as_value().fmt(f),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kept value displays as the value it was copied from, flags and all.
    #[test]
    fn displays_as_the_original_with_padding() {
        let d = Some(3);
        let values = [
            Value::I64(-3),
            Value::U64(7),
            Value::I128(-5),
            Value::U128(5),
            Value::F64(0.25),
            Value::Bool(true),
            Value::Char('q'),
            Value::Str("ab"),
            Value::Display(&"shown"),
            Value::Debug(&d),
        ];
        for v in values {
            let kept = OwnedValue::from(&v);
            if let Value::Debug(_) = v {
                // Rendered text pads as a string does.
                assert_eq!(format!("[{kept:>9.4}]"), format!("[{:>9.4}]", "Some(3)"));
            } else {
                assert_eq!(format!("[{kept:>9}]"), format!("[{v:>9}]"));
                assert_eq!(format!("[{kept:<9.3}]"), format!("[{v:<9.3}]"));
            }
        }
    }
}
