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
    Error = 1,
    /// Warnings and errors.
    Warn = 2,
    /// Info and above.
    Info = 3,
    /// Debug and above.
    Debug = 4,
    /// Everything.
    Trace = 5,
}

impl Level {
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
        match self {
            Level::Error => "ERROR",
            Level::Warn => "WARN",
            Level::Info => "INFO",
            Level::Debug => "DEBUG",
            Level::Trace => "TRACE",
        }
    }

    /// The filter that lets exactly this level and everything less verbose through.
    pub const fn to_filter(self) -> LevelFilter {
        match self {
            Level::Error => LevelFilter::Error,
            Level::Warn => LevelFilter::Warn,
            Level::Info => LevelFilter::Info,
            Level::Debug => LevelFilter::Debug,
            Level::Trace => LevelFilter::Trace,
        }
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
            LevelFilter::Error => Some(Level::Error),
            LevelFilter::Warn => Some(Level::Warn),
            LevelFilter::Info => Some(Level::Info),
            LevelFilter::Debug => Some(Level::Debug),
            LevelFilter::Trace => Some(Level::Trace),
        }
    }

    /// Lower-case name (`off`, `error`, ...).
    pub const fn as_str(self) -> &'static str {
        match self {
            LevelFilter::Off => "off",
            LevelFilter::Error => "error",
            LevelFilter::Warn => "warn",
            LevelFilter::Info => "info",
            LevelFilter::Debug => "debug",
            LevelFilter::Trace => "trace",
        }
    }
}

impl From<Level> for LevelFilter {
    fn from(l: Level) -> Self {
        l.to_filter()
    }
}

impl PartialEq<LevelFilter> for Level {
    fn eq(&self, other: &LevelFilter) -> bool {
        self.as_u8() == other.as_u8()
    }
}

impl PartialOrd<LevelFilter> for Level {
    fn partial_cmp(&self, other: &LevelFilter) -> Option<Ordering> {
        Some(self.as_u8().cmp(&other.as_u8()))
    }
}

impl PartialEq<Level> for LevelFilter {
    fn eq(&self, other: &Level) -> bool {
        self.as_u8() == other.as_u8()
    }
}

impl PartialOrd<Level> for LevelFilter {
    fn partial_cmp(&self, other: &Level) -> Option<Ordering> {
        Some(self.as_u8().cmp(&other.as_u8()))
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl fmt::Display for LevelFilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// The error returned when a string names no level.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseLevelError {
    input: String,
}

impl fmt::Display for ParseLevelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` is not a level (expected off, error, warn, info, debug or trace)",
            self.input
        )
    }
}

impl std::error::Error for ParseLevelError {}

/// Case-insensitive names, with the Python aliases `critical` and `warning`.
fn parse_name(s: &str) -> Option<LevelFilter> {
    let s = s.trim();
    let eq = |name: &str| s.eq_ignore_ascii_case(name);
    Some(if eq("off") {
        LevelFilter::Off
    } else if eq("error") || eq("critical") {
        LevelFilter::Error
    } else if eq("warn") || eq("warning") {
        LevelFilter::Warn
    } else if eq("info") {
        LevelFilter::Info
    } else if eq("debug") {
        LevelFilter::Debug
    } else if eq("trace") {
        LevelFilter::Trace
    } else {
        return None;
    })
}

impl FromStr for LevelFilter {
    type Err = ParseLevelError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_name(s).ok_or_else(|| ParseLevelError {
            input: s.to_owned(),
        })
    }
}

impl FromStr for Level {
    type Err = ParseLevelError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_name(s)
            .and_then(LevelFilter::to_level)
            .ok_or_else(|| ParseLevelError {
                input: s.to_owned(),
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
    fn display_pads() {
        assert_eq!(format!("{:<6}|", Level::Info), "INFO  |");
        assert_eq!(LevelFilter::Debug.to_string(), "debug");
    }
}
