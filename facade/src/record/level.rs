//! Verbosity levels and level filters.
//!
//! A [`Level`] belongs to a record; a [`LevelFilter`] is a threshold. A record
//! passes a filter when `level <= filter`: `Error` is the least verbose level,
//! `Trace` the most, and [`LevelFilter::Off`] lets nothing through.

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

/// The verbosity of a record.
///
/// ```
/// use elide::{Level, LevelFilter};
/// assert!(Level::Error < Level::Debug);
/// assert!(Level::Info <= LevelFilter::Debug);
/// assert_eq!("warning".parse::<Level>(), Ok(Level::Warn));
/// ```
#[repr(u8)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// Something failed.
    Error = 1,
    /// Something unexpected that the program survives.
    Warn = 2,
    /// Progress a user or operator wants to see.
    Info = 3,
    /// Detail for the developer.
    Debug = 4,
    /// Very fine-grained detail.
    Trace = 5,
}

/// A threshold: the most verbose [`Level`] that is let through, or `Off`.
///
/// ```
/// use elide::{Level, LevelFilter};
/// assert!(Level::Warn <= LevelFilter::Info);
/// assert!(!(Level::Error <= LevelFilter::Off));
/// assert_eq!("DEBUG".parse::<LevelFilter>(), Ok(LevelFilter::Debug));
/// ```
#[repr(u8)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum LevelFilter {
    /// Nothing passes.
    Off = 0,
    /// Only errors.
    #[default]
    Error = Level::Error as u8,
    /// Warnings and errors.
    Warn = Level::Warn as u8,
    /// Info and above.
    Info = Level::Info as u8,
    /// Debug and above.
    Debug = Level::Debug as u8,
    /// Everything.
    Trace = Level::Trace as u8,
}

/// Compatibility aliases: the level names as `tracing` spells them. Same
/// values as the variants; elide's own docs use the variants.
impl Level {
    /// [`Level::Error`], spelled as `tracing` spells it (`Level::ERROR`).
    pub const ERROR: Level = Level::Error;
    /// [`Level::Warn`], spelled as `tracing` spells it (`Level::WARN`).
    pub const WARN: Level = Level::Warn;
    /// [`Level::Info`], spelled as `tracing` spells it (`Level::INFO`).
    ///
    /// ```
    /// use elide::Level;
    /// elide::event!(Level::INFO, port = 8080, "listening");
    /// assert_eq!(Level::INFO, Level::Info);
    /// ```
    pub const INFO: Level = Level::Info;
    /// [`Level::Debug`], spelled as `tracing` spells it (`Level::DEBUG`).
    pub const DEBUG: Level = Level::Debug;
    /// [`Level::Trace`], spelled as `tracing` spells it (`Level::TRACE`).
    pub const TRACE: Level = Level::Trace;

    /// All levels, least verbose first.
    pub const ALL: [Level; 5] = [
        Level::Error,
        Level::Warn,
        Level::Info,
        Level::Debug,
        Level::Trace,
    ];

    /// The level's numeric value (1 = Error .. 5 = Trace), as used by the
    /// per-site cache.
    #[inline(always)]
    pub const fn as_u8(self) -> u8 {
        self as u8
    }

    /// The upper-case name printed in log lines (`ERROR`, `WARN`, ...).
    pub const fn as_str(self) -> &'static str {
        ["ERROR", "WARN", "INFO", "DEBUG", "TRACE"][self as usize - 1]
    }

    /// The filter that lets exactly this level and everything less verbose through.
    pub const fn to_filter(self) -> LevelFilter {
        LevelFilter::from_u8(self as u8)
    }
}

impl LevelFilter {
    /// The filter's numeric value (0 = Off .. 5 = Trace).
    #[inline(always)]
    pub const fn as_u8(self) -> u8 {
        self as u8
    }

    /// The filter with numeric value `v` (values above 5 saturate to `Trace`).
    pub const fn from_u8(v: u8) -> LevelFilter {
        match v {
            0 => LevelFilter::Off,
            1 => LevelFilter::Error,
            2 => LevelFilter::Warn,
            3 => LevelFilter::Info,
            4 => LevelFilter::Debug,
            _ => LevelFilter::Trace,
        }
    }

    /// The most verbose level this filter lets through, or `None` for `Off`.
    pub const fn to_level(self) -> Option<Level> {
        match self {
            LevelFilter::Off => None,
            _ => Some(Level::ALL[self as usize - 1]),
        }
    }

    /// Lower-case name (`off`, `error`, ...).
    pub const fn as_str(self) -> &'static str {
        ["off", "error", "warn", "info", "debug", "trace"][self as usize]
    }
}

impl From<Level> for LevelFilter {
    fn from(l: Level) -> Self {
        l.to_filter()
    }
}

/// Level and filter compare by rank, either way round, and display their
/// names (padded to the formatter's width).
macro_rules! cross_cmp {
    ($($a:ty, $b:ty);*) => {$(
        impl PartialEq<$b> for $a {
            fn eq(&self, other: &$b) -> bool {
                self.as_u8() == other.as_u8()
            }
        }

        impl PartialOrd<$b> for $a {
            fn partial_cmp(&self, other: &$b) -> Option<Ordering> {
                Some(self.as_u8().cmp(&other.as_u8()))
            }
        }

        impl fmt::Display for $a {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.pad(self.as_str())
            }
        }
    )*};
}
cross_cmp!(Level, LevelFilter; LevelFilter, Level);

/// The error returned when a string names no level.
///
/// Its message names the input and what would have been accepted:
///
/// ```
/// let e = "verbose".parse::<elide::LevelFilter>().unwrap_err();
/// assert!(e.to_string().starts_with("`verbose` is not a level filter"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseLevelError {
    input: String,
    problem: Problem,
}

/// Why a level did not parse; it picks the expected syntax to list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Problem {
    /// Not a level name of either kind.
    FilterName,
    /// Digits, but not a number with a level meaning.
    FilterNumber,
    /// A [`Level`] was asked for: `off` (60) is a filter, not a level.
    RecordLevel,
}

/// The syntax [`LevelFilter::from_str`] and the `LOG_LVL` variables accept.
const FILTER_SYNTAX: &str = "expected off, critical, error, warning, warn, info, debug, trace, \
                             debug_1..debug_9, or one of the numbers 60, 50, 40, 30, 20, 10, 0..9";

/// The syntax [`Level::from_str`] accepts: the same without `off` and 60.
const LEVEL_SYNTAX: &str = "expected critical, error, warning, warn, info, debug, trace, \
                            debug_1..debug_9, or one of the numbers 50, 40, 30, 20, 10, 0..9";

impl ParseLevelError {
    /// The message without the input, for the environment warning (which
    /// names the variable and its value already).
    pub(crate) fn reason(&self) -> String {
        match self.problem {
            Problem::FilterName => format!("not a level ({FILTER_SYNTAX})"),
            Problem::FilterNumber => format!("not a level number ({FILTER_SYNTAX})"),
            Problem::RecordLevel => format!("not a record level ({LEVEL_SYNTAX})"),
        }
    }
}

impl fmt::Display for ParseLevelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.problem {
            Problem::FilterName | Problem::FilterNumber => write!(
                f,
                "`{}` is not a level filter ({FILTER_SYNTAX})",
                self.input
            ),
            Problem::RecordLevel => {
                write!(f, "`{}` is not a record level ({LEVEL_SYNTAX})", self.input)
            }
        }
    }
}

impl std::error::Error for ParseLevelError {}

/// The one level parser, behind both `FromStr` impls and the `LOG_LVL`
/// environment keys. Accepts names in any case with surrounding whitespace,
/// the Python aliases `critical` and `warning`, RADICAL's finer debug levels
/// `debug_1`..`debug_9` (all `trace` here) and Python's numeric levels.
fn parse_filter(text: &str) -> Result<LevelFilter, Problem> {
    let s = text.trim();
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
        // Only the numbers Python's logging and RADICAL give a meaning to;
        // anything else is reported rather than rounded to a neighbour.
        return match s.parse::<u64>() {
            Ok(60) => Ok(LevelFilter::Off),
            Ok(50 | 40) => Ok(LevelFilter::Error),
            Ok(30) => Ok(LevelFilter::Warn),
            Ok(20) => Ok(LevelFilter::Info),
            Ok(10) => Ok(LevelFilter::Debug),
            Ok(0..=9) => Ok(LevelFilter::Trace),
            _ => Err(Problem::FilterNumber),
        };
    }
    let eq = |name: &str| s.eq_ignore_ascii_case(name);
    let b = s.as_bytes();
    if let Some(filter) = (0..=5).map(LevelFilter::from_u8).find(|f| eq(f.as_str())) {
        Ok(filter)
    } else if eq("critical") {
        Ok(LevelFilter::Error)
    } else if eq("warning") {
        Ok(LevelFilter::Warn)
    } else if b.len() == 7
        && b[..6].eq_ignore_ascii_case(b"debug_")
        && (b'1'..=b'9').contains(&b[6])
    {
        Ok(LevelFilter::Trace)
    } else {
        Err(Problem::FilterName)
    }
}

/// Parses a threshold: everything [`Level`] parses, plus `off` and `60`.
///
/// ```
/// use elide::LevelFilter;
/// assert_eq!("off".parse(), Ok(LevelFilter::Off));
/// assert_eq!("30".parse(), Ok(LevelFilter::Warn));
/// assert_eq!("debug_3".parse(), Ok(LevelFilter::Trace));
/// ```
impl FromStr for LevelFilter {
    type Err = ParseLevelError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_filter(s).map_err(|problem| ParseLevelError {
            input: s.to_owned(),
            problem,
        })
    }
}

/// Parses a record level, with the syntax of the `LOG_LVL` variables except
/// `off` (and its number 60), which is a filter, not a level.
///
/// ```
/// use elide::Level;
/// assert_eq!("Warning".parse(), Ok(Level::Warn));
/// assert_eq!("20".parse(), Ok(Level::Info));
/// assert!("off".parse::<Level>().is_err());
/// ```
impl FromStr for Level {
    type Err = ParseLevelError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        // Whatever failed, list the syntax a level accepts.
        let level = parse_filter(s).ok().and_then(LevelFilter::to_level);
        level.ok_or_else(|| ParseLevelError {
            input: s.to_owned(),
            problem: Problem::RecordLevel,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_and_comparison_across_types() {
        assert!(Level::Error < Level::Warn && Level::Debug < Level::Trace);
        assert!(Level::Debug <= LevelFilter::Trace);
        assert!(Level::Debug > LevelFilter::Info);
        assert!(Level::Error > LevelFilter::Off);
        assert!(LevelFilter::Off < LevelFilter::Error);
        for l in Level::ALL {
            assert_eq!(l.to_filter().to_level(), Some(l));
            assert_eq!(LevelFilter::from_u8(l.as_u8()), l.to_filter());
        }
    }

    /// Public comparisons between the two types, written out (not derived
    /// from `as_u8`), so a wrong impl cannot agree with its own test.
    #[test]
    fn equality_order_and_conversion_between_level_and_filter() {
        // Each impl on its own line: `Level == LevelFilter` and
        // `LevelFilter == Level` are two impls, both under test.
        assert!(Level::Info == LevelFilter::Info);
        assert!(LevelFilter::Info == Level::Info);
        assert!(Level::Info != LevelFilter::Debug);
        assert!(LevelFilter::Warn != Level::Info);
        assert!(Level::Error != LevelFilter::Off);
        assert!(LevelFilter::Off != Level::Error);
        assert!(LevelFilter::Info < Level::Debug);
        assert!(LevelFilter::Info > Level::Warn);
        assert!(LevelFilter::Off < Level::Error);
        assert!(LevelFilter::Trace >= Level::Trace);
        assert_eq!(
            LevelFilter::Debug.partial_cmp(&Level::Debug),
            Some(Ordering::Equal)
        );
        assert_eq!(
            Level::Warn.partial_cmp(&LevelFilter::Info),
            Some(Ordering::Less)
        );
        let pairs = [
            (Level::Error, LevelFilter::Error),
            (Level::Warn, LevelFilter::Warn),
            (Level::Info, LevelFilter::Info),
            (Level::Debug, LevelFilter::Debug),
            (Level::Trace, LevelFilter::Trace),
        ];
        for (level, filter) in pairs {
            assert_eq!(LevelFilter::from(level), filter);
            let into: LevelFilter = level.into();
            assert_eq!(into, filter);
        }
        assert_eq!(LevelFilter::from_u8(0), LevelFilter::Off);
        assert_eq!(LevelFilter::from_u8(3), LevelFilter::Info);
        assert_eq!(LevelFilter::from_u8(200), LevelFilter::Trace);
    }

    #[test]
    fn parse_is_case_insensitive_and_knows_aliases() {
        assert_eq!("Warning".parse::<Level>(), Ok(Level::Warn));
        assert_eq!(" critical ".parse::<Level>(), Ok(Level::Error));
        assert_eq!("TRACE".parse::<LevelFilter>(), Ok(LevelFilter::Trace));
        assert_eq!("off".parse::<LevelFilter>(), Ok(LevelFilter::Off));
        assert!("off".parse::<Level>().is_err());
        assert!("verbose".parse::<LevelFilter>().is_err());
        let e = "loud".parse::<Level>().unwrap_err().to_string();
        assert!(e.contains("loud"), "{e}");
    }

    #[test]
    fn filter_parse_takes_what_the_environment_takes() {
        assert_eq!("30".parse::<LevelFilter>(), Ok(LevelFilter::Warn));
        assert_eq!("60".parse::<LevelFilter>(), Ok(LevelFilter::Off));
        assert_eq!(" 7 ".parse::<LevelFilter>(), Ok(LevelFilter::Trace));
        assert_eq!("debug_3".parse::<LevelFilter>(), Ok(LevelFilter::Trace));
        assert_eq!("DEBUG_9".parse::<Level>(), Ok(Level::Trace));
        assert_eq!("10".parse::<Level>(), Ok(Level::Debug));
        assert_eq!("50".parse::<Level>(), Ok(Level::Error));
        for bad in ["35", "61", "debug_0", "debug_10", "-1", ""] {
            assert!(bad.parse::<LevelFilter>().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn level_parse_error_does_not_offer_off() {
        for s in ["OFF", "off", "60", "loud"] {
            let e = s.parse::<Level>().unwrap_err().to_string();
            assert!(e.contains(&format!("`{s}`")), "{e}");
            let expected = &e[e.find("(expected").expect(&e)..];
            assert!(!expected.contains("off"), "{s:?}: {e}");
            assert!(!expected.contains("60"), "{s:?}: {e}");
            assert!(expected.contains("critical, error"), "{e}");
        }
        // The filter's message does list it.
        let e = "loud".parse::<LevelFilter>().unwrap_err().to_string();
        assert!(e.contains("expected off"), "{e}");
    }

    #[test]
    fn display_pads() {
        assert_eq!(format!("{:<6}|", Level::Info), "INFO  |");
        assert_eq!(LevelFilter::Debug.to_string(), "debug");
    }
}
