//! A record's message, unformatted: what [`Record::args`](crate::Record::args)
//! returns.
//!
//! A site whose format is data (plain `{}` and `{:?}` placeholders) hands
//! its pieces and typed arguments as they are: no `fmt::Arguments` is built
//! for a record no sink formats, and a line writer formats the pieces
//! without the `fmt` machinery. Every other message is a `fmt::Arguments`.

use std::fmt::{self, Write as _};

use crate::record::raw::{pieces_len, write_pieces, Interpret, Piece, RawMessage, Through};

/// A record's message, not yet formatted: `{}` (or `to_string()`) gives the
/// text the site's `format_args!` would give.
///
/// ```
/// use elide::{Kind, Level, Metadata, Record};
/// static META: Metadata =
///     Metadata::new(Kind::Log, Level::Info, "app", "app", file!(), line!(), "");
/// let record = Record::new(&META, Level::Info, format_args!("task {} done", 7), &[]);
/// assert_eq!(record.args().to_string(), "task 7 done");
/// assert_eq!(format!("[{}]", record.args()), "[task 7 done]");
/// // A message without arguments is a static string, no formatting needed.
/// let plain = Record::new(&META, Level::Info, format_args!("ready"), &[]);
/// assert_eq!(plain.args().as_str(), Some("ready"));
/// ```
#[derive(Clone, Copy)]
pub struct Message<'a>(Repr<'a>);

#[derive(Clone, Copy)]
enum Repr<'a> {
    /// Formatted by `fmt`.
    Args(fmt::Arguments<'a>),
    /// A text known at compile time (a telemetry event's name).
    Static(&'static str),
    /// A data format's pieces with their arguments (its format splits).
    Data(RawMessage<'a>),
    /// A format only `fmt` renders, with the typed arguments an
    /// asynchronous sink copies instead of formatting them on the caller.
    Both(fmt::Arguments<'a>, RawMessage<'a>),
}

impl<'a> Message<'a> {
    /// A text that needs no formatting.
    #[inline]
    pub(crate) fn text(text: &'static str) -> Message<'a> {
        Message(Repr::Static(text))
    }

    /// A data format's message (the site's shared path; `raw`'s format
    /// must split into pieces, else it formats as empty).
    #[inline]
    pub(crate) fn data(raw: RawMessage<'a>) -> Message<'a> {
        Message(Repr::Data(raw))
    }

    /// Attaches the typed arguments to a message `fmt` renders.
    #[inline]
    pub(crate) fn with_raw(self, raw: Option<RawMessage<'a>>) -> Message<'a> {
        match (self.0, raw) {
            (Repr::Args(args), Some(raw)) => Message(Repr::Both(args, raw)),
            _ => self,
        }
    }

    /// The message's typed arguments and format, when the site handed them.
    #[inline]
    pub(crate) fn raw(&self) -> Option<&RawMessage<'a>> {
        match &self.0 {
            Repr::Args(_) | Repr::Static(_) => None,
            Repr::Data(raw) | Repr::Both(_, raw) => Some(raw),
        }
    }

    /// The message as a static string when it needs no formatting (a
    /// message without arguments), like [`fmt::Arguments::as_str`].
    #[inline]
    pub fn as_str(&self) -> Option<&'static str> {
        match &self.0 {
            Repr::Args(args) | Repr::Both(args, _) => args.as_str(),
            Repr::Static(text) => Some(text),
            Repr::Data(raw) => match raw.pieces() {
                Some([Piece::Lit(s)]) => Some(*s),
                Some([]) => Some(""),
                _ => None,
            },
        }
    }

    /// Calls `f` with the message as `fmt::Arguments`, for an API that
    /// takes them (`write_fmt`, another logger's record).
    ///
    /// ```
    /// use elide::{Kind, Level, Metadata, Record};
    /// use std::fmt::Write;
    /// static META: Metadata =
    ///     Metadata::new(Kind::Log, Level::Info, "app", "app", file!(), line!(), "");
    /// let record = Record::new(&META, Level::Info, format_args!("{} of {}", 3, 4), &[]);
    /// let mut line = String::new();
    /// record.args().with_args(|args| line.write_fmt(args)).unwrap();
    /// assert_eq!(line, "3 of 4");
    /// ```
    pub fn with_args<R>(&self, f: impl FnOnce(fmt::Arguments<'_>) -> R) -> R {
        match &self.0 {
            Repr::Args(args) | Repr::Both(args, _) => f(*args),
            Repr::Static(text) => f(format_args!("{text}")),
            Repr::Data(raw) => match raw.pieces() {
                Some(pieces) => {
                    let args = raw.args();
                    f(format_args!("{}", Interpret { pieces, args }))
                }
                None => f(format_args!("")),
            },
        }
    }

    /// The message as a `String`: the text of `{}`, sized up front (a data
    /// format's pieces written without the `fmt` machinery), so a sink
    /// that keeps messages pays one allocation.
    #[allow(clippy::inherent_to_string_shadow_display)] // the same text, built faster
    pub fn to_string(&self) -> String {
        match self.raw() {
            Some(raw) if raw.pieces().is_some() => {
                let mut text = String::new();
                self.write_to(&mut text, |s, out| out.push_str(s), true);
                text
            }
            _ => self.with_args(fmt::format),
        }
    }

    /// Appends the message to `out` (see
    /// [`Record::write_message`](crate::Record::write_message)), each
    /// literal piece and argument through `text`: a data format's pieces
    /// straight into the line, without the `fmt` machinery (with `reserve`,
    /// after reserving their length: for a fresh `String`).
    #[inline]
    pub(crate) fn write_to<T: Fn(&str, &mut String) + Copy>(
        &self,
        out: &mut String,
        text: T,
        reserve: bool,
    ) {
        if let Some(raw) = self.raw() {
            if let Some(pieces) = raw.pieces() {
                if reserve {
                    out.reserve(pieces_len(pieces));
                }
                return write_pieces(pieces, raw.args(), out, text);
            }
        }
        if let Some(s) = self.as_str() {
            return text(s, out);
        }
        self.with_args(|args| {
            let _ = Through(out, text).write_fmt(args);
        })
    }
}

impl<'a> From<fmt::Arguments<'a>> for Message<'a> {
    #[inline]
    fn from(args: fmt::Arguments<'a>) -> Message<'a> {
        Message(Repr::Args(args))
    }
}

impl fmt::Display for Message<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.with_args(|args| fmt::Display::fmt(&args, f))
    }
}

/// The same as `Display`, as `fmt::Arguments` does.
impl fmt::Debug for Message<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::raw::{MessageFormat, RawArg};

    static TASK: MessageFormat = MessageFormat::pieces(&[
        Piece::Lit("task "),
        Piece::Display(0),
        Piece::Lit(" says "),
        Piece::Debug(1),
        Piece::Lit("\n"),
    ]);
    static LITERAL: MessageFormat = MessageFormat::pieces(&[Piece::Lit("ready")]);

    /// Every way a sink reads a data message gives what `format_args!`
    /// gives for the same format and arguments.
    #[test]
    fn a_data_message_reads_as_the_sites_format_args() {
        let args = [RawArg::U32(7), RawArg::Str("hi\u{2028}")];
        let m = Message::data(RawMessage::new(&TASK, &args));
        let expected = format!("task {} says {:?}\n", 7u32, "hi\u{2028}");
        assert_eq!(m.to_string(), expected);
        assert_eq!(format!("{m}"), expected);
        assert_eq!(format!("{m:?}"), expected);
        assert_eq!(m.with_args(|a| a.to_string()), expected);
        let mut plain = String::new();
        m.write_to(&mut plain, |s, out| out.push_str(s), false);
        assert_eq!(plain, expected);
        assert_eq!(m.as_str(), None);
        assert!(m.raw().is_some());
    }

    #[test]
    fn a_message_without_arguments_is_a_static_string() {
        let m = Message::data(RawMessage::new(&LITERAL, &[]));
        assert_eq!(m.as_str(), Some("ready"));
        let m = Message::from(format_args!("ready"));
        assert_eq!(m.as_str(), Some("ready"));
        assert!(m.raw().is_none());
        let m = Message::text("task.start");
        assert_eq!(m.as_str(), Some("task.start"));
        assert_eq!(m.to_string(), "task.start");
        assert_eq!(format!("[{m:>12}]"), "[task.start]");
        assert_eq!(m.with_args(|a| a.to_string()), "task.start");
    }

    fn padded(args: &[RawArg<'_>], f: &mut dyn FnMut(fmt::Arguments<'_>)) {
        if let [RawArg::U32(n)] = args {
            f(format_args!("{n:>3}|"))
        }
    }
    static PADDED: MessageFormat = MessageFormat::decode(&[], padded);

    /// A message `fmt` renders keeps its typed arguments beside it (the
    /// site's decoder made it), and reads as its `fmt::Arguments`.
    #[test]
    fn typed_arguments_ride_along_a_formatted_message() {
        let args = [RawArg::U32(7)];
        let mut seen = Vec::new();
        PADDED.with_arguments(&args, &mut |a| {
            let m = Message::from(a).with_raw(Some(RawMessage::new(&PADDED, &args)));
            let mut plain = String::new();
            m.write_to(&mut plain, |s, out| out.push_str(s), true);
            seen.push((
                m.to_string(),
                format!("{m}"),
                m.with_args(|a| a.to_string()),
                plain,
            ));
            assert!(m.raw().is_some());
            assert!(Message::from(a).with_raw(None).raw().is_none());
        });
        let expected = "  7|".to_string();
        assert_eq!(
            seen,
            [(
                expected.clone(),
                expected.clone(),
                expected.clone(),
                expected
            )]
        );
    }
}
