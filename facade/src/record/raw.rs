//! A message's arguments captured raw: copied as typed values, formatted
//! later from the site's message format.
//!
//! A log site hands sinks its arguments as [`RawArg`]s with its
//! [`MessageFormat`]. When every argument is of a copyable kind (integers,
//! floats, `bool`, `char`, strings), the record carries a [`RawMessage`]:
//! an asynchronous sink copies the arguments instead of rendering the
//! message on the caller, and its writer formats them later, each with its
//! original type's formatting trait, so the text is the caller's.
//!
//! A format of plain `{}` and `{:?}` placeholders is data (the pieces of
//! the string and which argument goes where), interpreted by one shared
//! function; other placeholders (`{:>8.3}`, `{:x}`) get a per-site decoder
//! that runs `format_args!` over the raw arguments. Either way the site
//! instantiates formatting at most once.
//!
//! Which arguments are raw is decided at expansion, without their types,
//! by deref specialisation over inherent methods (which need no `use` at
//! the site): `RawWrap(arg).elide_display()` is [`RawWrap`]'s own method
//! when the type implements [`ToRawArg`] (the value), else, through
//! `Deref`, [`RawByTrait`]'s when it has the placeholder's trait (borrowed
//! as a trait object), else [`RawUnformattable`]'s. A method whose impl's
//! bound fails is passed over for the next `Deref` step.
//!
//! The capture is also the site's type check: the methods of the first and
//! last level are bounded by the placeholder's trait (`where T: Display`),
//! which the compiler checks once it has picked the method, so `{:x}` of an
//! `f64`, or a type without the trait, fails with the trait's own message
//! (`X doesn't implement Display`), and the site needs no `format_args!`
//! of its own.

use std::fmt;

/// One argument of a message: by value with its exact original type kept,
/// so it formats the same (`{:x}` of an `i8` prints two digits, not
/// sixteen; floats with the code that formats them, see [`RawFloat`]), or
/// borrowed through the formatting trait its placeholder uses (`Display`
/// .. `UpperExp`: only the caller can format those).
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
    F32(RawFloat<f32>),
    F64(RawFloat<f64>),
    Bool(bool),
    Char(char),
    Str(&'a str),
    Display(&'a dyn fmt::Display),
    Debug(&'a dyn fmt::Debug),
    LowerHex(&'a dyn fmt::LowerHex),
    UpperHex(&'a dyn fmt::UpperHex),
    Octal(&'a dyn fmt::Octal),
    Binary(&'a dyn fmt::Binary),
    LowerExp(&'a dyn fmt::LowerExp),
    UpperExp(&'a dyn fmt::UpperExp),
    /// Never built at run time: the placeholder's trait is missing, which
    /// the site's compile-time check reports.
    Unformattable,
}

/// A float argument together with the function that formats it.
///
/// Why not the bare float: a match arm of [`RawArg`]'s formatting traits
/// that formatted a float directly would link core's float formatting
/// (about 4 KB) into every program that logs at all. As a pointer, it is
/// linked only where a float is captured ([`RawFloat::new`], inlined into
/// the site), and no `RawFloat` exists without it, so every float prints
/// exactly as its type's formatting traits print it.
#[derive(Clone, Copy)]
pub struct RawFloat<T> {
    value: T,
    format: FloatFormat<T>,
}

/// Formats a float through the formatting trait of a [`FloatStyle`].
type FloatFormat<T> = fn(&T, FloatStyle, &mut fmt::Formatter<'_>) -> fmt::Result;

/// The formatting traits a float implements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatStyle {
    /// `{}`.
    Display,
    /// `{:?}`.
    Debug,
    /// `{:e}`.
    LowerExp,
    /// `{:E}`.
    UpperExp,
}

impl<T> RawFloat<T>
where
    T: Copy + fmt::Display + fmt::Debug + fmt::LowerExp + fmt::UpperExp,
{
    /// The float `value`, with its formatting.
    #[inline(always)]
    pub fn new(value: T) -> RawFloat<T> {
        RawFloat {
            value,
            format: format_float::<T>,
        }
    }
}

impl<T: Copy> RawFloat<T> {
    /// The float.
    #[inline]
    pub fn get(self) -> T {
        self.value
    }

    /// Writes the float as its type's trait of `style` writes it.
    #[inline]
    pub fn write(&self, style: FloatStyle, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (self.format)(&self.value, style, f)
    }
}

fn format_float<T>(v: &T, style: FloatStyle, f: &mut fmt::Formatter<'_>) -> fmt::Result
where
    T: fmt::Display + fmt::Debug + fmt::LowerExp + fmt::UpperExp,
{
    match style {
        FloatStyle::Display => fmt::Display::fmt(v, f),
        FloatStyle::Debug => fmt::Debug::fmt(v, f),
        FloatStyle::LowerExp => fmt::LowerExp::fmt(v, f),
        FloatStyle::UpperExp => fmt::UpperExp::fmt(v, f),
    }
}

impl<T: Copy> fmt::Debug for RawFloat<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(FloatStyle::Debug, f)
    }
}

impl RawArg<'_> {
    /// Whether the argument is held by value (a copy a writer thread can
    /// format later), not borrowed from the caller.
    #[inline]
    pub fn is_owned(&self) -> bool {
        !matches!(
            self,
            RawArg::Display(_)
                | RawArg::Debug(_)
                | RawArg::LowerHex(_)
                | RawArg::UpperHex(_)
                | RawArg::Octal(_)
                | RawArg::Binary(_)
                | RawArg::LowerExp(_)
                | RawArg::UpperExp(_)
                | RawArg::Unformattable
        )
    }
}

/// A per-site decoder: formats the site's message from its raw arguments
/// and hands the result to the callback.
pub type RawDecode = for<'a, 'b, 'c> fn(&'a [RawArg<'b>], &'c mut dyn FnMut(fmt::Arguments<'_>));

/// One piece of a message format held as data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece {
    /// Literal text (escapes such as `{{` already resolved).
    Lit(&'static str),
    /// `{}` of the argument at this index.
    Display(u8),
    /// `{:?}` of the argument at this index.
    Debug(u8),
}

/// How a site's message is made from its arguments: pieces interpreted by
/// shared code, or the site's own decoder.
#[derive(Clone, Copy)]
pub struct MessageFormat {
    kind: FormatKind,
}

#[derive(Clone, Copy)]
enum FormatKind {
    Pieces(&'static [Piece]),
    Decode(RawDecode),
}

impl MessageFormat {
    /// A format of plain `{}` / `{:?}` placeholders (the macros build it).
    pub const fn pieces(pieces: &'static [Piece]) -> MessageFormat {
        MessageFormat {
            kind: FormatKind::Pieces(pieces),
        }
    }

    /// A format with its own decoder (the macros build it). The pieces,
    /// empty, are there so a site's template writes both constructors'
    /// calls alike.
    pub const fn decode(_pieces: &'static [Piece], decode: RawDecode) -> MessageFormat {
        MessageFormat {
            kind: FormatKind::Decode(decode),
        }
    }

    /// The message formatted from `args`, handed to `f`.
    #[inline]
    pub fn with_arguments(&self, args: &[RawArg<'_>], f: &mut dyn FnMut(fmt::Arguments<'_>)) {
        match self.kind {
            FormatKind::Pieces(pieces) => f(format_args!("{}", Interpret { pieces, args })),
            FormatKind::Decode(decode) => decode(args, f),
        }
    }

    /// The pieces of a data format, or the site's decoder.
    #[inline(always)]
    pub(crate) fn split(&self) -> Result<&'static [Piece], RawDecode> {
        match self.kind {
            FormatKind::Pieces(pieces) => Ok(pieces),
            FormatKind::Decode(decode) => Err(decode),
        }
    }
}

impl fmt::Debug for MessageFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            FormatKind::Pieces(p) => f.debug_tuple("Pieces").field(&p).finish(),
            FormatKind::Decode(_) => f.write_str("Decode(..)"),
        }
    }
}

/// Pieces over arguments as one `Display` value, formatted as the site's
/// `format_args!` would.
pub(crate) struct Interpret<'p, 'a> {
    pub(crate) pieces: &'p [Piece],
    pub(crate) args: &'p [RawArg<'a>],
}

impl fmt::Display for Interpret<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for piece in self.pieces {
            match *piece {
                Piece::Lit(s) => f.write_str(s)?,
                // An index past the arguments cannot come from the macros;
                // it writes nothing rather than panic in a logger.
                Piece::Display(i) => {
                    if let Some(a) = self.args.get(i as usize) {
                        fmt::Display::fmt(a, f)?
                    }
                }
                Piece::Debug(i) => {
                    if let Some(a) = self.args.get(i as usize) {
                        fmt::Debug::fmt(a, f)?
                    }
                }
            }
        }
        Ok(())
    }
}

/// Appends `pieces` over `args` to `out`, each text (literal pieces and
/// string arguments, and whatever other arguments format to) through
/// `text`: the message `format_args!` would make, with integers, `bool`s and
/// strings written directly instead of through the `fmt` machinery.
#[inline]
pub(crate) fn write_pieces<T: Fn(&str, &mut String) + Copy>(
    pieces: &[Piece],
    args: &[RawArg<'_>],
    out: &mut String,
    text: T,
) {
    use crate::record::decimal::{push_i64, push_u64};
    use fmt::Write as _;
    for piece in pieces {
        let (i, debug) = match *piece {
            Piece::Lit(s) => {
                text(s, out);
                continue;
            }
            Piece::Display(i) => (i, false),
            Piece::Debug(i) => (i, true),
        };
        let Some(a) = args.get(i as usize) else {
            continue;
        };
        match *a {
            _ if debug => {
                let _ = write!(Through(out, text), "{a:?}");
            }
            RawArg::U64(n) => drop(push_u64(n, out)),
            RawArg::Usize(n) => drop(push_u64(n as u64, out)),
            RawArg::U32(n) => drop(push_u64(n.into(), out)),
            RawArg::U16(n) => drop(push_u64(n.into(), out)),
            RawArg::U8(n) => drop(push_u64(n.into(), out)),
            RawArg::I64(n) => push_i64(n, out),
            RawArg::Isize(n) => push_i64(n as i64, out),
            RawArg::I32(n) => push_i64(n.into(), out),
            RawArg::I16(n) => push_i64(n.into(), out),
            RawArg::I8(n) => push_i64(n.into(), out),
            RawArg::Bool(b) => out.push_str(if b { "true" } else { "false" }),
            RawArg::Str(s) => text(s, out),
            _ => {
                let _ = write!(Through(out, text), "{a}");
            }
        }
    }
}

/// A `fmt::Write` that hands every string to `text`.
pub(crate) struct Through<'o, T>(pub(crate) &'o mut String, pub(crate) T);

impl<T: Fn(&str, &mut String)> fmt::Write for Through<'_, T> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        (self.1)(s, self.0);
        Ok(())
    }
}

/// What the literal pieces and a short number per placeholder take: one
/// allocation for a fresh `String`.
pub(crate) fn pieces_len(pieces: &[Piece]) -> usize {
    pieces
        .iter()
        .map(|p| match p {
            Piece::Lit(s) => s.len(),
            _ => 8,
        })
        .sum()
}

/// A message as raw arguments plus the site's format.
#[derive(Clone, Copy)]
pub struct RawMessage<'a> {
    format: &'static MessageFormat,
    args: &'a [RawArg<'a>],
}

impl<'a> RawMessage<'a> {
    /// Pairs a site's format with its arguments (the macros' shared path
    /// calls this). [`Record::raw`](crate::Record::raw) offers it to sinks
    /// only when [`is_owned`](Self::is_owned).
    #[inline]
    pub fn new(format: &'static MessageFormat, args: &'a [RawArg<'a>]) -> RawMessage<'a> {
        RawMessage { format, args }
    }
    /// Whether every argument is held by value, so a writer thread can
    /// format the message later from a copy.
    #[inline]
    pub fn is_owned(&self) -> bool {
        self.args.iter().all(RawArg::is_owned)
    }
    /// The arguments, in the order of the format string's arguments.
    pub fn args(&self) -> &'a [RawArg<'a>] {
        self.args
    }
    /// The site's format.
    pub fn format(&self) -> &'static MessageFormat {
        self.format
    }
    /// Formats the message (same text as the site's `format_args!`).
    pub fn with_arguments(&self, f: &mut dyn FnMut(fmt::Arguments<'_>)) {
        self.format.with_arguments(self.args, f)
    }
    /// The pieces of a data format (plain `{}` / `{:?}` placeholders), for
    /// a line writer that formats them without `fmt::Arguments`.
    #[inline]
    pub(crate) fn pieces(&self) -> Option<&'static [Piece]> {
        self.format.split().ok()
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

/// Each type's arm: `|v| kind` makes the argument from `v: &Self`.
macro_rules! to_raw {
    ($($t:ty: |$v:ident| $raw:expr),* $(,)?) => {$(
        impl ToRawArg for $t {
            #[inline(always)]
            fn to_raw(&self) -> RawArg<'_> {
                let $v = self;
                $raw
            }
        }
    )*};
    ($($t:ty => $kind:ident),* $(,)?) => {
        to_raw!($($t: |v| RawArg::$kind(*v)),*);
    };
}
to_raw!(
    i8 => I8, i16 => I16, i32 => I32, i64 => I64, isize => Isize, i128 => I128,
    u8 => U8, u16 => U16, u32 => U32, u64 => U64, usize => Usize, u128 => U128,
    bool => Bool, char => Char,
);
to_raw!(
    f32: |v| RawArg::F32(RawFloat::new(*v)),
    f64: |v| RawArg::F64(RawFloat::new(*v)),
    str: |v| RawArg::Str(v),
    String: |v| RawArg::Str(v),
);
impl<T: ToRawArg + ?Sized> ToRawArg for &T {
    #[inline(always)]
    fn to_raw(&self) -> RawArg<'_> {
        (**self).to_raw()
    }
}

/// The receiver of the deref specialisation (see the module docs): its own
/// methods take a [`ToRawArg`] argument by value.
#[repr(transparent)]
pub struct RawWrap<'a, T: ?Sized>(pub &'a T);

/// The second level of the specialisation: the argument borrowed through
/// the placeholder's formatting trait.
#[repr(transparent)]
pub struct RawByTrait<'a, T: ?Sized>(&'a T);

/// The last level: a type without the placeholder's trait.
#[repr(transparent)]
pub struct RawUnformattable<'a, T: ?Sized>(&'a T);

/// A level's `Debug` is its name only (the argument may have none); each
/// level but the last derefs to the next.
macro_rules! level {
    ($t:ident $(=> $next:ident)?) => {
        impl<T: ?Sized> fmt::Debug for $t<'_, T> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(stringify!($t))
            }
        }
        $(
            impl<'a, T: ?Sized> core::ops::Deref for $t<'a, T> {
                type Target = $next<'a, T>;
                #[inline(always)]
                fn deref(&self) -> &$next<'a, T> {
                    // SAFETY: both are `repr(transparent)` over the same `&'a T`.
                    unsafe { &*(self as *const Self).cast::<$next<'a, T>>() }
                }
            }
        )?
    };
}
level!(RawWrap => RawByTrait);
level!(RawByTrait => RawUnformattable);
level!(RawUnformattable);

/// The method names, one per formatting trait a placeholder can use.
macro_rules! specialise {
    ($(($method:ident, $trait:ident)),* $(,)?) => {
        impl<'a, T: ToRawArg + ?Sized> RawWrap<'a, T> {
            $(
                /// The argument by value, for a type with the placeholder's
                /// trait (the bound is the site's compile-time check).
                #[inline(always)]
                pub fn $method(&self) -> RawArg<'a>
                where
                    T: fmt::$trait,
                {
                    self.0.to_raw()
                }
            )*
        }
        $(
            impl<'a, T: fmt::$trait> RawByTrait<'a, T> {
                /// The argument as a trait object.
                #[inline(always)]
                pub fn $method(&self) -> RawArg<'a> {
                    RawArg::$trait(self.0)
                }
            }
        )*
        impl<T: ?Sized> RawUnformattable<'_, T> {
            $(
                /// Never compiles: reached only by a type without the
                /// placeholder's trait, which the bound then reports.
                #[inline(always)]
                pub fn $method(&self) -> RawArg<'static>
                where
                    T: fmt::$trait,
                {
                    RawArg::Unformattable
                }
            )*
        }
    };
}
specialise!(
    (elide_display, Display),
    (elide_debug, Debug),
    (elide_lower_hex, LowerHex),
    (elide_upper_hex, UpperHex),
    (elide_octal, Octal),
    (elide_binary, Binary),
    (elide_lower_exp, LowerExp),
    (elide_upper_exp, UpperExp),
);

/// Forwards formatting traits to the argument's original type (or to its
/// trait object), for the integer kinds, the `others` and the `floats`;
/// kinds that lack a trait write nothing (the capture's bound would not
/// have compiled with them, so they never get here).
macro_rules! forward {
    ($($trait:ident),*: $others:tt $floats:tt) => {$(
        forward!(@one $trait [I8 I16 I32 I64 Isize I128 U8 U16 U32 U64 Usize U128]
            $others $floats);
    )*};
    (@one $trait:ident [$($int:ident)*] [$($other:ident)*] [$($float:ident)*]) => {
        impl fmt::$trait for RawArg<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self {
                    $(RawArg::$int(x) => fmt::$trait::fmt(x, f),)*
                    $(RawArg::$other(x) => fmt::$trait::fmt(x, f),)*
                    // Through the float's own pointer: see `RawFloat`.
                    $(RawArg::$float(x) => x.write(FloatStyle::$trait, f),)*
                    RawArg::$trait(x) => x.fmt(f),
                    #[allow(unreachable_patterns)]
                    _ => Ok(()),
                }
            }
        }
    };
}
// `{:?}` is the original type's `Debug`: strings and chars quoted.
forward!(Display, Debug: [Bool Char Str] [F32 F64]);
forward!(LowerHex, UpperHex, Octal, Binary: [] []);
forward!(LowerExp, UpperExp: [] [F32 F64]);

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

    /// A float formats through its own pointer exactly as the float does,
    /// in every trait and with every flag.
    #[test]
    fn floats_format_byte_for_byte_like_the_float() {
        fn same<T: ToRawArg + Copy + fmt::Display + fmt::Debug + fmt::LowerExp + fmt::UpperExp>(
            v: T,
        ) {
            let r = v.to_raw();
            assert!(r.is_owned());
            let pairs = [
                (format!("{r}"), format!("{v}")),
                (format!("{r:?}"), format!("{v:?}")),
                (format!("{r:e}"), format!("{v:e}")),
                (format!("{r:E}"), format!("{v:E}")),
                (format!("{r:+12.3}"), format!("{v:+12.3}")),
                (format!("{r:<14?}|"), format!("{v:<14?}|")),
                (format!("{r:^+016.2e}"), format!("{v:^+016.2e}")),
            ];
            for (got, want) in pairs {
                assert_eq!(got, want);
            }
        }
        for v in [
            0.1,
            -0.0,
            1e300,
            1.0e-7,
            2.5,
            f64::NAN,
            f64::INFINITY,
            f64::MIN_POSITIVE,
        ] {
            same(v);
        }
        for v in [0.1f32, -1.5, f32::MAX, 1.0e-7, f32::NEG_INFINITY] {
            same(v);
        }
        let kept = RawFloat::new(1.25f64);
        assert_eq!(kept.get(), 1.25);
        assert_eq!(format!("{kept:?}"), "1.25");
    }

    #[test]
    fn specialisation_copies_copyable_kinds_and_borrows_the_rest() {
        let n = 7u16;
        let s = String::from("x");
        let v = vec![1];
        assert!(matches!(RawWrap(&n).elide_display(), RawArg::U16(7)));
        assert!(matches!(RawWrap(&&n).elide_lower_hex(), RawArg::U16(7)));
        assert!(matches!(RawWrap(&s).elide_debug(), RawArg::Str("x")));
        assert!(matches!(RawWrap(&"y").elide_display(), RawArg::Str("y")));
        let by_debug = RawWrap(&v).elide_debug();
        assert!(matches!(by_debug, RawArg::Debug(_)) && !by_debug.is_owned());
        assert_eq!(format!("{by_debug:?}"), "[1]");
        let shown = std::path::Path::new("/p").display();
        let by_display = RawWrap(&shown).elide_display();
        assert!(matches!(by_display, RawArg::Display(_)));
        assert_eq!(format!("{by_display}"), "/p");
        // `RawWrap(&Opaque).elide_display()` does not compile: the ui test
        // `log_arg_lacks_trait` holds its error.
    }

    #[test]
    fn pieces_format_like_format_args() {
        static PIECES: [Piece; 5] = [
            Piece::Lit("task "),
            Piece::Display(0),
            Piece::Lit(" {said} "),
            Piece::Debug(1),
            Piece::Display(0),
        ];
        static FORMAT: MessageFormat = MessageFormat::pieces(&PIECES);
        let args = [RawArg::U64(42), RawArg::Str("a\"b")];
        let mut out = String::new();
        FORMAT.with_arguments(&args, &mut |m| out = m.to_string());
        assert_eq!(out, format!("task {0} {{said}} {1:?}{0}", 42u64, "a\"b"));
        assert!(RawMessage::new(&FORMAT, &args).is_owned());
        let v = vec![1];
        let borrowed = [RawArg::U64(1), RawArg::Debug(&v)];
        FORMAT.with_arguments(&borrowed, &mut |m| out = m.to_string());
        assert_eq!(out, "task 1 {said} [1]1");
        assert!(
            !RawMessage::new(&FORMAT, &borrowed).is_owned(),
            "a borrowed argument cannot go to a writer thread"
        );
    }

    #[test]
    fn debug_shows_the_format_and_the_arguments() {
        static PIECES: [Piece; 2] = [Piece::Lit("n="), Piece::Debug(0)];
        static FORMAT: MessageFormat = MessageFormat::pieces(&PIECES);
        assert_eq!(format!("{FORMAT:?}"), r#"Pieces([Lit("n="), Debug(0)])"#);
        fn decode(_: &[RawArg<'_>], _: &mut dyn FnMut(fmt::Arguments<'_>)) {}
        assert_eq!(
            format!("{:?}", MessageFormat::decode(&[], decode)),
            "Decode(..)"
        );
        let args = [RawArg::I8(-1), RawArg::Str("s")];
        assert_eq!(
            format!("{:?}", RawMessage::new(&FORMAT, &args)),
            r#"RawMessage { args: [-1, "s"], .. }"#
        );
        assert_eq!(format!("{:?}", RawWrap(&args)), "RawWrap");
    }

    #[test]
    fn the_reservation_covers_literals_and_short_numbers() {
        static PIECES: [Piece; 4] = [
            Piece::Lit("a literal longer than eight bytes: "),
            Piece::Display(0),
            Piece::Lit(" and "),
            Piece::Debug(1),
        ];
        let args = [RawArg::U32(12_345_678), RawArg::I16(-1234)];
        let mut out = String::new();
        write_pieces(&PIECES, &args, &mut out, |s, out| out.push_str(s));
        assert_eq!(out, "a literal longer than eight bytes: 12345678 and -1234");
        assert!(
            pieces_len(&PIECES) >= out.len(),
            "one allocation for the message"
        );
    }
}
