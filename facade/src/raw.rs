//! A message's arguments captured raw: copied as typed values, formatted
//! later by a decoder the site generated for its own format string.
//!
//! A log site whose arguments are all of copyable kinds (integers, floats,
//! `bool`, `char`, strings) hands sinks, besides the usual
//! [`fmt::Arguments`], a [`RawMessage`]: the arguments as [`RawArg`]s and a
//! per-site [`RawDecode`] function that runs the site's `format_args!` over
//! them. An asynchronous sink copies the arguments into its per-thread
//! buffer instead of rendering the message on the caller, and its writer
//! calls the decoder. The decoder formats each argument with its original
//! type's formatting trait, so the text is the same as the caller's.
//!
//! Which arguments are raw is decided at expansion without knowing their
//! types, by autoref specialisation: `(&RawWrap(&arg)).elide_raw()` resolves
//! to [`RawCapture`] when the type implements [`ToRawArg`], otherwise to
//! [`RawFallback`], which answers `None`, and the site is rendered as
//! before.

use std::fmt;

/// One argument of a raw message, with its exact original type kept so it
/// formats the same (`{:x}` of an `i8` prints two digits, not sixteen).
#[derive(Clone, Copy)]
#[allow(missing_docs)]
pub enum RawArg<'a> {
    I8(i8),
    I16(i16),
    I32(i32),
    I64(i64),
    Isize(isize),
    I128(i128),
    U8(u8),
    U16(u16),
    U32(u32),
    U64(u64),
    Usize(usize),
    U128(u128),
    F32(f32),
    F64(f64),
    Bool(bool),
    Char(char),
    Str(&'a str),
}

/// The decoder of a site: formats the site's message from its raw
/// arguments and hands the result to the callback.
pub type RawDecode = for<'a, 'b, 'c> fn(&'a [RawArg<'b>], &'c mut dyn FnMut(fmt::Arguments<'_>));

/// A message as raw arguments plus the site's decoder.
#[derive(Clone, Copy)]
pub struct RawMessage<'a> {
    decode: RawDecode,
    args: &'a [RawArg<'a>],
}

impl<'a> RawMessage<'a> {
    /// Pairs a site's decoder with its arguments (the macros call this).
    #[inline]
    pub fn new(decode: RawDecode, args: &'a [RawArg<'a>]) -> RawMessage<'a> {
        RawMessage { decode, args }
    }
    /// The arguments, in the order of the format string's arguments.
    pub fn args(&self) -> &'a [RawArg<'a>] {
        self.args
    }
    /// The site's decoder.
    pub fn decoder(&self) -> RawDecode {
        self.decode
    }
    /// Formats the message (same text as the site's `format_args!`).
    pub fn with_arguments(&self, f: &mut dyn FnMut(fmt::Arguments<'_>)) {
        (self.decode)(self.args, f)
    }
}

impl fmt::Debug for RawMessage<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RawMessage")
            .field("args", &self.args)
            .finish_non_exhaustive()
    }
}

/// Types whose values a site may capture raw.
pub trait ToRawArg {
    /// The value as a raw argument.
    fn to_raw(&self) -> RawArg<'_>;
}

macro_rules! to_raw {
    ($($t:ty => $v:ident),* $(,)?) => {$(
        impl ToRawArg for $t {
            #[inline(always)]
            fn to_raw(&self) -> RawArg<'_> {
                RawArg::$v(*self)
            }
        }
    )*};
}
to_raw!(
    i8 => I8, i16 => I16, i32 => I32, i64 => I64, isize => Isize, i128 => I128,
    u8 => U8, u16 => U16, u32 => U32, u64 => U64, usize => Usize, u128 => U128,
    f32 => F32, f64 => F64, bool => Bool, char => Char,
);

impl ToRawArg for str {
    #[inline(always)]
    fn to_raw(&self) -> RawArg<'_> {
        RawArg::Str(self)
    }
}
impl ToRawArg for String {
    #[inline(always)]
    fn to_raw(&self) -> RawArg<'_> {
        RawArg::Str(self)
    }
}
impl<T: ToRawArg + ?Sized> ToRawArg for &T {
    #[inline(always)]
    fn to_raw(&self) -> RawArg<'_> {
        (**self).to_raw()
    }
}

/// The receiver of the autoref specialisation (see the module docs).
pub struct RawWrap<'a, T: ?Sized>(pub &'a T);

impl<T: ?Sized> fmt::Debug for RawWrap<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("RawWrap")
    }
}

/// Chosen for types that implement [`ToRawArg`]: the argument, raw.
pub trait RawCapture<'a> {
    /// `Some` raw argument.
    fn elide_raw(&self) -> Option<RawArg<'a>>;
}

impl<'a, T: ToRawArg + ?Sized> RawCapture<'a> for RawWrap<'a, T> {
    #[inline(always)]
    fn elide_raw(&self) -> Option<RawArg<'a>> {
        Some(self.0.to_raw())
    }
}

/// Chosen for every other type (one `&` further): `None`, so the site's
/// message is rendered on the caller.
pub trait RawFallback<'a> {
    /// `None`.
    #[inline(always)]
    fn elide_raw(&self) -> Option<RawArg<'a>> {
        None
    }
}

impl<'a, T: ?Sized> RawFallback<'a> for &RawWrap<'a, T> {}

/// Forwards one formatting trait to the argument's original type; kinds
/// that lack the trait write nothing (the site's own `format_args!` would
/// not have compiled with them, so they never get here).
macro_rules! forward {
    ($trait:ident: $($v:ident),*) => {
        impl fmt::$trait for RawArg<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self {
                    $(RawArg::$v(x) => fmt::$trait::fmt(x, f),)*
                    #[allow(unreachable_patterns)]
                    _ => Ok(()),
                }
            }
        }
    };
}
forward!(Display: I8, I16, I32, I64, Isize, I128, U8, U16, U32, U64, Usize, U128,
    F32, F64, Bool, Char, Str);
// `{:?}` is the original type's `Debug`: strings and chars quoted.
forward!(Debug: I8, I16, I32, I64, Isize, I128, U8, U16, U32, U64, Usize, U128,
    F32, F64, Bool, Char, Str);
forward!(LowerHex: I8, I16, I32, I64, Isize, I128, U8, U16, U32, U64, Usize, U128);
forward!(UpperHex: I8, I16, I32, I64, Isize, I128, U8, U16, U32, U64, Usize, U128);
forward!(Octal: I8, I16, I32, I64, Isize, I128, U8, U16, U32, U64, Usize, U128);
forward!(Binary: I8, I16, I32, I64, Isize, I128, U8, U16, U32, U64, Usize, U128);
forward!(LowerExp: I8, I16, I32, I64, Isize, I128, U8, U16, U32, U64, Usize, U128, F32, F64);
forward!(UpperExp: I8, I16, I32, I64, Isize, I128, U8, U16, U32, U64, Usize, U128, F32, F64);

#[cfg(test)]
mod tests {
    use super::*;

    fn capture<T: ToRawArg + fmt::Display + fmt::Debug + fmt::LowerHex>(v: T) {
        let r = v.to_raw();
        assert_eq!(format!("{r}"), format!("{v}"));
        assert_eq!(format!("{r:x}"), format!("{v:x}"));
        assert_eq!(format!("{r:>8x}"), format!("{v:>8x}"));
    }

    #[test]
    fn raw_arguments_format_like_their_original_types() {
        capture(-1i8);
        capture(-1i32);
        capture(u64::MAX);
        capture(i128::MIN);
        assert_eq!(
            format!("{:.2}", 1.005f32.to_raw()),
            format!("{:.2}", 1.005f32)
        );
        assert_eq!(
            format!("{:e}", 1234.5f64.to_raw()),
            format!("{:e}", 1234.5f64)
        );
        assert_eq!(format!("{:>5}", 'q'.to_raw()), format!("{:>5}", 'q'));
        assert_eq!(format!("{:<6}|", "ab".to_raw()), "ab    |");
        assert_eq!(format!("{:?}", "a\"b".to_raw()), format!("{:?}", "a\"b"));
        assert_eq!(format!("{:#x?}", 255u8.to_raw()), format!("{:#x?}", 255u8));
    }

    #[test]
    #[allow(clippy::needless_borrow)] // the `&` is what selects the impl
    fn specialisation_picks_raw_for_copyable_kinds_only() {
        #[allow(unused_imports)]
        use super::{RawCapture as _, RawFallback as _};
        let n = 7u16;
        let s = String::from("x");
        let v = vec![1];
        assert!(matches!((&RawWrap(&n)).elide_raw(), Some(RawArg::U16(7))));
        assert!(matches!(
            (&RawWrap(&&s)).elide_raw(),
            Some(RawArg::Str("x"))
        ));
        assert!((&RawWrap(&v)).elide_raw().is_none());
    }
}
